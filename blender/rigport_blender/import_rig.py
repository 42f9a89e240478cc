# File > Import > Game rig (rigport): the game files go through `rigport convert` into a temporary
# folder, then through Blender's glTF importer; every rig becomes one armature in a collection named
# after its file, each clip one action on its own NLA track, framed by the clip's own length.
import fnmatch
import os
import re
import tempfile

import bpy

from . import cli, gltf_json, provenance

# Blender's glTF importer options that keep a rig as rigport wrote it: bone_heuristic 'BLENDER' leaves
# every bone's rest orientation as its glTF node has it (the default, TEMPERANCE, re-aims bones at
# their children, which changes every rest rotation and inverse bind matrix on export), and
# guess_original_bind_pose takes the rest pose from the inverse bind matrices the meshes are bound by.
IMPORTER_OPTIONS = {"bone_heuristic": "BLENDER", "guess_original_bind_pose": True, "merge_vertices": False}


class ImportSettings:
    def __init__(self, items="", clips="", skeleton="", rest_pose="", feet_on_ground=True, key_every_frame=False):
        self.items = split_list(items)
        self.clips = split_list(clips)
        self.skeleton = skeleton
        self.rest_pose = rest_pose.strip()
        self.feet_on_ground = feet_on_ground
        # Blender interpolates a quaternion's four curves one by one, not along the sphere as glTF
        # and the games do: between keys far apart (a Sims 3 clip turning 2 rad in 10 frames) its
        # frames stray from the clip (3.8 cm on tests/data/samples/sims3's package), and the export
        # bakes that. A key on every frame (`convert --resample`) holds the clip exactly at each one.
        self.key_every_frame = key_every_frame


class ImportResult:
    def __init__(self):
        self.armatures = []
        self.warnings = []


def split_list(text):
    return [part.strip() for part in text.split(",") if part.strip()]


def import_rigs(context, cli_path, paths, settings):
    """Converts and imports `paths` (files or folders); returns an ImportResult. On any failure
    (rigport's error or the importer's) it raises cli.RigportError and leaves the file as it was."""
    known = {ext.lower() for f in cli.formats(cli_path) for ext in f.extensions}
    files = expand_folders(paths, known)
    if not files:
        raise cli.RigportError("no file of a format rigport reads in " + ", ".join(paths))
    result = ImportResult()
    with tempfile.TemporaryDirectory(prefix="rigport_") as work:
        # Everything is converted before anything is imported: a file rigport refuses adds nothing.
        jobs = plan(cli_path, files, settings)
        converted, result.warnings = convert_all(cli_path, jobs, os.path.join(work, "keys"), [])
        clips = [clip for _, glbs in converted for g in glbs for clip in g.animations()]
        fps = gltf_json.frame_rate([t for _, _, times in clips for t in times]) or context.scene.render.fps
        if clips and settings.key_every_frame:
            converted, result.warnings = convert_all(cli_path, jobs, os.path.join(work, "frames"), ["--resample", str(fps)])
        before = provenance.DataSnapshot()
        try:
            set_frame_rate(context.scene, fps, clips)
            for job, glbs in converted:
                collection = new_collection(context, os.path.basename(job.path))
                for glb in glbs:
                    result.armatures += import_glb(context, collection, job, glb)
        except Exception as error:
            before.remove_added()
            raise cli.RigportError(f"import failed, nothing was added: {error}") from error
    return result


def convert_all(cli_path, jobs, folder, extra):
    """[(job, [GltfFile])] and the warnings of converting every job into `folder`."""
    converted, warnings = [], []
    for n, job in enumerate(jobs):
        written, lines = cli.convert(cli_path, job.args(os.path.join(folder, str(n))) + extra)
        warnings += [f"{os.path.basename(job.path)}: {w}" for w in lines]
        converted.append((job, [gltf_json.GltfFile(w) for w in written]))  # absolute: `folder` is
    return converted, warnings


def expand_folders(paths, known_extensions):
    files = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                files += [os.path.join(root, n) for n in sorted(names) if os.path.splitext(n)[1].lower() in known_extensions]
        elif path:
            files.append(path)
    return files


class ConvertJob:
    """One `rigport convert` of one model file (or of a clip file alone), with its options."""

    def __init__(self, path, info):
        self.path = path
        self.info = info
        self.options = []

    def args(self, out_dir):
        # --merge: every clip that plays on the rig goes into the rig's one file, so one armature has them all.
        return [self.path, "-o", out_dir, "--merge", *self.options]

    def item_of(self, rig_name):
        """The item id `info` lists for a rig of this name (a container's resource), else ''."""
        for item in self.info.get("items", []):
            if item.get("kind") in ("rig", "object") and item.get("name") == rig_name:
                return item["id"]
        return ""


def plan(cli_path, files, settings):
    """Model files each get every animation-only file as --anim; clip files alone play on --skeleton."""
    infos = cli.info(cli_path, [os.path.abspath(f) for f in files])
    for entry in infos:
        if entry.get("error"):
            raise cli.RigportError(entry["error"].get("text") or entry["error"].get("message", "unreadable"))
    models = [e for e in infos if e.get("rigs") or not e.get("clipSets")]
    clip_files = [e for e in infos if not e.get("rigs") and e.get("clipSets")]
    jobs = [ConvertJob(e["file"], e) for e in (models or clip_files)]
    anim_args = [a for e in (clip_files if models else []) for a in ("--anim", e["file"])]
    clip_args = clip_choice(infos, settings.clips)
    for job in jobs:
        # Clip files picked with the models play on every one of them; a model picked alone brings
        # the clips the export wrote beside it (a folder the file browser cannot pick from at once).
        job.options += (anim_args or clips_beside(job.info)) + item_choice(job.info, settings.items, settings.clips) + clip_args
        if settings.skeleton:
            job.options += ["--skeleton", cli.bpy_path(settings.skeleton)]
        if settings.rest_pose:
            job.options += ["--rest-pose", settings.rest_pose]
        if not settings.feet_on_ground:
            job.options.append("--no-ground")
    return jobs


def clip_names(infos):
    names = []
    for entry in infos:
        for holder in entry.get("rigs", []) + entry.get("clipSets", []):
            names += [a["name"] for a in holder.get("animations", []) if a.get("name") not in names]
    return names


def clip_matches(name, pattern):
    """A pattern with * ? [ is a wildcard; a plain word is found anywhere in the name (any case)."""
    name, pattern = name.lower(), pattern.lower()
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return pattern in name


def clip_choice(infos, patterns):
    if not patterns:
        return []
    names = clip_names(infos)
    chosen = [n for n in names if any(clip_matches(n, p) for p in patterns)]
    if not chosen:
        shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
        raise cli.RigportError(f"no clip matches {', '.join(patterns)}; the clips are: {shown or 'none'}")
    return [a for n in chosen for a in ("--clip", n)]


def clips_beside(info):
    """--anim for every clip file in the folder the add-on's export writes beside a model of a format
    that stores no clips (`NAME_clips/*.anm` beside `NAME.dff`), else []."""
    extension = cli.CLIP_FILES_OF.get(info.get("format", ""))
    folder = cli.clips_folder(info["file"])
    if not extension or not os.path.isdir(folder):
        return []
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith(extension))
    return [arg for n in names for arg in ("--anim", os.path.join(folder, n))]


def item_choice(info, wanted, clip_patterns):
    """--item for each wanted id or name this file lists (a wanted item it does not list is an error).
    The items choose rigs; unless clip items are named too, the container's clip items (those the clip
    filter keeps) come along, so a rig chosen by name keeps its clips."""
    if not wanted:
        return []
    items = info.get("items", [])
    chosen = []
    for token in wanted:
        match = [i for i in items if token in (i.get("id"), i.get("name"))]
        if not match:
            listed = ", ".join(f"{i['id']} ({i.get('kind')} {i.get('name')})" for i in items[:12])
            raise cli.RigportError(f"{os.path.basename(info['file'])} has no item '{token}'; its items: {listed}")
        chosen.append(match[0])
    if not any(i.get("kind") == "clip" for i in chosen):
        chosen += [i for i in items if i.get("kind") == "clip" and
                   (not clip_patterns or any(clip_matches(i.get("name", ""), p) for p in clip_patterns))]
    return [a for i in chosen for a in ("--item", i["id"])]


def set_frame_rate(scene, fps, clips):
    """The scene plays at the clips' own rate (their key times) from frame 0 to the longest clip's end:
    the importer turns seconds into frames at the scene's rate, so this comes first."""
    if not clips:
        return
    scene.render.fps = fps
    scene.render.fps_base = 1.0
    scene.frame_start = 0
    scene.frame_end = max(1, round(max(duration for _, duration, _ in clips) * fps))


def new_collection(context, name):
    collection = bpy.data.collections.new(name)
    context.scene.collection.children.link(collection)
    return collection


def importer_options():
    """IMPORTER_OPTIONS that this Blender's importer has (its options differ between versions)."""
    known = bpy.ops.import_scene.gltf.get_rna_type().properties.keys()
    return {k: v for k, v in IMPORTER_OPTIONS.items() if k in known}


def import_glb(context, collection, job, glb):
    """Imports one converted file into `collection`; returns its armature objects."""
    before = set(bpy.data.objects)
    outcome = bpy.ops.import_scene.gltf(filepath=glb.path, **importer_options())
    if "FINISHED" not in outcome:
        raise RuntimeError(f"Blender's glTF importer returned {outcome} for {os.path.basename(glb.path)}")
    # The importer links into the collection active when the operator started: moved to the file's own.
    added = [o for o in bpy.data.objects if o not in before]
    for obj in added:
        for holder in list(obj.users_collection):
            holder.objects.unlink(obj)
        collection.objects.link(obj)
    armatures = [o for o in added if o.type == "ARMATURE"]
    for armature in armatures:
        name_armature(armature, glb)
        provenance.record(armature, job, glb)
        frame_clips(context.scene, armature, glb)
    return armatures


def name_armature(armature, glb):
    """The armature object is named after the rig where it stands for no bone of the game file:
    - where the skeleton's root joint has no parent node, the importer makes the armature up and
      names it after the skin (rigport names a skin after its root bone); exported back, it would be
      a second bone of that name, so it is also marked as rigport's own root
      (extras.rigportSyntheticRoot), which rigport's glTF reader does not take for a bone;
    - where it is rigport's own root (the ground lift above a GTA ped: that mark came with it)."""
    nodes = glb.json.get("nodes", [])
    has_parent = {c for n in nodes for c in n.get("children", [])}
    joints = glb.json.get("skins", [{}])[0].get("joints", [])
    # Blender adds ".001" to a name an object already has (the same rig imported twice).
    made_up = re.sub(r"\.\d{3}$", "", armature.name) in {nodes[j].get("name") for j in joints if j not in has_parent}
    if not made_up and not armature.get("rigportSyntheticRoot"):
        return
    scene = (glb.json.get("scenes") or [{}])[0].get("name", "")
    if scene.endswith("_scene") and any(n.get("name") == scene[:-len("_scene")] for n in nodes):
        scene = scene[:-len("_scene")]
    armature.name = scene or armature.name
    armature["rigportSyntheticRoot"] = True


def frame_clips(scene, armature, glb):
    """Each clip's action spans its own length (extras.duration), not only its keys: a clip with one
    key is still as long as the file says. The animation's other extras (a Sims 3 clip's events and
    morph channels, its actor and source names) become the action's custom properties, which Blender's
    exporter writes back as the animation's extras (export_extras): Blender's importer drops them."""
    data = armature.animation_data
    if data is None:
        return
    lengths = {name: duration for name, duration, _ in glb.animations()}
    extras = glb.animation_extras()
    for track in data.nla_tracks:
        duration = lengths.get(track.name)
        if duration is None:
            continue
        end = max(duration * scene.render.fps, 1.0)
        for strip in track.strips:
            if strip.action is None:
                continue
            strip.action.use_frame_range = True
            strip.action.frame_start = 0.0
            strip.action.frame_end = end
            for key, value in extras.get(track.name, {}).items():
                if key != "duration":  # the frame range holds it, and follows edits
                    strip.action[key] = value
            strip.action_frame_start = 0.0
            strip.action_frame_end = end
            strip.frame_end = strip.frame_start + end
