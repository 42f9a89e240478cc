# File > Export > Game rig (rigport): the armature, its meshes and the actions on its NLA tracks go
# through Blender's glTF exporter into a temporary .glb, then `rigport convert --to FORMAT`; `rigport
# compare` then measures how far the written game file poses from that .glb.
import os
import tempfile

import bpy

from . import cli, provenance

# Blender's glTF exporter options for a rig going back to a game: every clip (the importer put each on
# its own NLA track, named after the clip: 'Group by NLA Track' names each glTF animation after its
# track, not after the action), sampled over the action's own frame range rather than the scene's
# playback range, bone ids in extras (custom properties), glTF's Y up (rigport converts axes itself).
# Blender 4 replaced export_nla_strips with export_animation_mode; options this Blender's exporter
# lacks are left out (exporter_options()).
EXPORTER_OPTIONS = {
    "export_format": "GLB",
    "use_selection": True,
    "export_animations": True,
    "export_animation_mode": "NLA_TRACKS",
    "export_nla_strips": True,
    "export_anim_single_armature": False,  # it would add other armatures' actions whose bone names match
    "export_frame_range": False,
    "export_force_sampling": True,
    "export_reset_pose_bones": True,
    "export_current_frame": False,
    "export_skins": True,
    "export_def_bones": False,
    "export_extras": True,
    "export_yup": True,
    "export_apply": False,
    "export_cameras": False,
    "export_lights": False,
}

# Formats `convert --base ORIGINAL` writes into a copy of the original (every resource or chunk the
# edit did not touch kept byte for byte).
WRITES_INTO_ORIGINAL = {"renderware-dff", "rw4-arena", "sims3-package", "sluggers-model"}
# A source format without a writer, and the writable format that holds the same rig.
WRITABLE_INSTEAD = {"sims3-rig": "sims3-package", "sluggers-archive": "sluggers-model"}


class ExportResult:
    def __init__(self):
        self.files = []
        self.warnings = []
        self.compare = None  # rigport compare's JSON


def default_format(armature, writable):
    """The armature's source format when rigport writes it (or the writable format of the same rig)."""
    for name in (armature.get(provenance.FORMAT, ""), armature.get(provenance.RIG_FORMAT, "")):
        name = WRITABLE_INSTEAD.get(name, name)
        if name in writable:
            return name
    return ""


def rig_objects(armature):
    """The armature and the meshes it deforms (children, or through an Armature modifier)."""
    meshes = [o for o in bpy.data.objects if o.type == "MESH" and (
        o.parent == armature or any(m.type == "ARMATURE" and m.object == armature for m in o.modifiers))]
    return [armature] + meshes


def exporter_options():
    known = bpy.ops.export_scene.gltf.get_rna_type().properties.keys()
    return {k: v for k, v in EXPORTER_OPTIONS.items() if k in known}


def export_gltf(context, armature, path):
    view_layer = context.view_layer
    selected = [o for o in view_layer.objects if o.select_get()]
    active = view_layer.objects.active
    try:
        for o in selected:
            o.select_set(False)
        for o in rig_objects(armature):
            o.select_set(True)
        view_layer.objects.active = armature
        outcome = bpy.ops.export_scene.gltf(filepath=path, **exporter_options())
    finally:
        for o in view_layer.objects:
            o.select_set(o in selected)
        view_layer.objects.active = active
    if "FINISHED" not in outcome:
        raise cli.RigportError(f"Blender's glTF exporter returned {outcome}")


def has_clips(armature):
    data = armature.animation_data
    return data is not None and (data.action is not None or any(t.strips for t in data.nla_tracks))


def original_of(armature, target):
    """The game file the armature was imported from, where `target` can be written into a copy of it."""
    source = armature.get(provenance.SOURCE, "")
    if target in WRITES_INTO_ORIGINAL and armature.get(provenance.FORMAT) == target and os.path.isfile(source):
        return source
    return ""


def export_rig(context, cli_path, armature, filepath, target, into_original=True):
    """Writes `armature` as `target` at `filepath` (clip files beside it where the format stores none;
    into a copy of the original it came from where the format allows and `into_original`) and compares
    the result with what Blender exported; returns an ExportResult."""
    result = ExportResult()
    with tempfile.TemporaryDirectory(prefix="rigport_") as work:
        edited = os.path.join(work, "edited.glb")
        export_gltf(context, armature, edited)
        args = [edited, "--to", target, "-o", filepath, "--overwrite"]
        original = original_of(armature, target) if into_original else ""
        if original:
            args += ["--base", original]
        if target in cli.CLIP_FILES_OF and has_clips(armature):
            # One file per clip, named after the clip (these formats store no clip name: a clip file's
            # name is its clip's), in a folder of their own so no original beside the model is replaced.
            args += ["--anim-out", os.path.join(cli.clips_folder(filepath), "{clip}" + cli.CLIP_FILES_OF[target])]
        result.files, result.warnings = cli.convert(cli_path, args)
        main = [f for f in result.files if os.path.abspath(f) == os.path.abspath(filepath)] or result.files[:1]
        clip_files = [f for f in result.files if f not in main]
        result.files = main + clip_files
        compare = [edited, main[0], "--json"]
        for clip_file in clip_files:
            compare += ["--anim-b", clip_file]
        _, result.compare, _ = cli.run(cli_path, ["compare", *compare])
    return result


def worst_measure(compare):
    """(measure, worst error in metres, where) of the largest error `rigport compare` found."""
    measures = compare.get("measures", [])
    if not measures:
        return ("nothing compared", 0.0, {})
    worst = max(measures, key=lambda m: m.get("worst", 0.0))
    return (worst.get("measure", ""), worst.get("worst", 0.0), worst.get("where", {}))
