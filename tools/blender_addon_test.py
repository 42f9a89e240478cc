# The Blender add-on (blender/rigport_blender) driven headless in Blender, installed from its zip into a
# scratch user folder (BLENDER_USER_SCRIPTS / BLENDER_USER_CONFIG, set by tests/blender_addon.cmake).
# Run: blender -b --factory-startup --python-exit-code 1 --python tools/blender_addon_test.py --
#        --part import|export --zip rigport_blender.zip --rigport RIGPORT --samples DIR --work DIR
# import: every format's sample and demo file through File > Import > Game rig (rigport): one armature
#   per rig with the glTF's joints, parents and rest matrices (rigport's own .glb of the same input,
#   read here, is the reference), skinned meshes with the glTF's weights, one action per clip on its
#   own NLA track spanning the clip's length, provenance; a Sims 3 rig with clips and no mesh is an
#   armature; items and clips chosen by name; a failure adds nothing.
# export: import, rotate one bone in one action and move one vertex, File > Export > Game rig
#   (rigport) to the source format; `rigport compare` finds the written file within the format's
#   precision of what Blender exported, and the original file differs from it at that bone.
# walkthrough: README's modding walkthrough, rendered (Cycles on the CPU): the demo's DFF and clip
#   imported, an arm raised in the clip, the DFF written back and imported again; the edit must show
#   in the second picture and again, the same, in the third. With --docs DIR the pictures are also
#   written there (README shows docs/walkthrough_*.png, rendered so and committed once).
import argparse
import math
import os
import shutil
import subprocess
import sys
import time

import bpy
from mathutils import Matrix, Quaternion
from mathutils.kdtree import KDTree

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)
    return condition


def parse_args():
    parser = argparse.ArgumentParser()
    for name in ("--part", "--zip", "--rigport", "--samples", "--work"):
        parser.add_argument(name, required=True)
    parser.add_argument("--docs")
    return parser.parse_args(sys.argv[sys.argv.index("--") + 1:])


def install(zip_path, rigport):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="rigport_blender")
    bpy.context.preferences.addons["rigport_blender"].preferences.cli_path = rigport


def clear_scene():
    for kind in ("objects", "meshes", "armatures", "actions", "materials", "images", "collections"):
        blocks = getattr(bpy.data, kind)
        for block in list(blocks):
            blocks.remove(block)


def import_files(paths, **options):
    """File > Import > Game rig (rigport) on files of one folder, as the file browser passes them.
    An operator that reports an error raises in background mode: returned as {'CANCELLED'}."""
    folder = os.path.dirname(paths[0])
    try:
        return bpy.ops.import_scene.rigport(directory=folder + os.sep, files=[{"name": os.path.basename(p)} for p in paths],
                                            **options)
    except RuntimeError as error:
        print("refused:", error)
        return {"CANCELLED"}


def reference(args, label, cli_args):
    """rigport's own .glb files for the same input and options (what the add-on imports)."""
    from rigport_blender import gltf_json
    out = os.path.join(args.work, "reference", label)
    done = subprocess.run([args.rigport, "convert", *cli_args, "-o", out, "--merge", "--overwrite"], capture_output=True, text=True)
    if not check(done.returncode == 0, f"{label}: reference convert failed: {done.stderr}"):
        return []
    return [gltf_json.GltfFile(os.path.join(out, n)) for n in sorted(os.listdir(out)) if n.endswith(".glb")]


# glTF's Y up to Blender's Z up, as Blender's importer converts: (x, y, z) -> (x, -z, y).
Y_UP_TO_Z_UP = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))


def node_matrix(node):
    if "matrix" in node:
        m = node["matrix"]
        return Matrix([[m[c * 4 + r] for c in range(4)] for r in range(4)])
    t = node.get("translation", [0, 0, 0])
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    s = node.get("scale", [1, 1, 1])
    return Matrix.Translation(t) @ Quaternion((w, x, y, z)).to_matrix().to_4x4() @ Matrix.Diagonal((*s, 1))


def world_matrices(gltf):
    nodes = gltf["nodes"]
    parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
    world = {}

    def of(i):
        if i not in world:
            local = node_matrix(nodes[i])
            world[i] = of(parent[i]) @ local if i in parent else local
        return world[i]

    for i in range(len(nodes)):
        of(i)
    return world, parent


def unscaled(m):
    """Rotation and translation of a matrix (Blender's bones carry no rest scale)."""
    loc, rot, _ = m.decompose()
    return Matrix.Translation(loc) @ rot.to_matrix().to_4x4()


def bone_nodes(gltf):
    """The nodes Blender makes bones of: the skin's joints and any node between two of them (a
    rigportScaleCompensation node under a scaled bone)."""
    joints = set(gltf["skins"][0]["joints"])
    _, parent = world_matrices(gltf)
    bones = set(joints)
    for j in joints:
        path, p = [], parent.get(j)
        while p is not None and p not in joints:
            path.append(p)
            p = parent.get(p)
        if p is not None:
            bones.update(path)
    return bones


def bind_matrices(glb, world, parent):
    """Each joint node's bind pose in the scene: the inverse of its inverse bind matrix, which Blender's
    importer takes as relative to the armature (the top joint's parent node, e.g. rigport's ground lift)."""
    skin = glb.json["skins"][0]
    joints = set(skin["joints"])
    top = next(j for j in skin["joints"] if parent.get(j) not in joints)
    armature = world[parent[top]] if top in parent else Matrix.Identity(4)
    rows = accessor_rows(glb, skin["inverseBindMatrices"], 16)
    return {j: armature @ Matrix([[m[c * 4 + r] for c in range(4)] for r in range(4)]).inverted() for j, m in zip(skin["joints"], rows)}


def check_rig(label, armature, glb):
    """Bones, parents and rest matrices of `armature` against the glTF skin. The importer's rest is the
    bind pose the meshes are bound in (guess_original_bind_pose: the inverse bind matrices; the node
    tree where a node is no joint), and with bone_heuristic 'BLENDER' a bone's axes are its node's,
    carried into Blender's Z up: its armature-space matrix is C @ B (C: glTF Y up to Z up, B: the
    bind world matrix), less scale."""
    gltf = glb.json
    nodes = gltf["nodes"]
    world, parent = world_matrices(gltf)
    world.update(bind_matrices(glb, world, parent))
    wanted = bone_nodes(gltf)
    bones = armature.data.bones
    check(len(bones) == len(wanted), f"{label}: {len(bones)} bones, the glTF has {len(wanted)} joint nodes")
    size = max((world[j].translation.length for j in wanted), default=1.0) or 1.0
    worst = 0.0
    for j in wanted:
        name = nodes[j]["name"]
        bone = bones.get(name)
        if not check(bone is not None, f"{label}: no bone '{name}'"):
            continue
        p = parent.get(j)
        expected_parent = nodes[p]["name"] if p in wanted else None
        check((bone.parent.name if bone.parent else None) == expected_parent,
              f"{label}: bone '{name}' parent {bone.parent.name if bone.parent else None}, glTF {expected_parent}")
        expected = unscaled(Y_UP_TO_Z_UP @ world[j])
        got = armature.matrix_world @ bone.matrix_local
        for r in range(3):
            for c in range(4):
                scale = size if c == 3 else 1.0
                worst = max(worst, abs(got[r][c] - expected[r][c]) / scale)
    check(worst < 1e-4, f"{label}: rest matrices differ from the glTF nodes by {worst:.3g} (relative)")
    for key in ("rigport_source", "rigport_format", "rigport_rig_format"):
        check(armature.get(key), f"{label}: armature lacks provenance '{key}'")
    return worst


def accessor_rows(glb, index, width):
    """An accessor's values, `width` per row (float, u8 or u16 components)."""
    import struct
    gltf = glb.json
    accessor = gltf["accessors"][index]
    view = gltf["bufferViews"][accessor["bufferView"]]
    kind = {5126: ("f", 4), 5121: ("B", 1), 5123: ("H", 2), 5125: ("I", 4)}[accessor["componentType"]]
    stride = view.get("byteStride", kind[1] * width)
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    return [struct.unpack_from(f"<{width}{kind[0]}", glb.bin, start + i * stride) for i in range(accessor["count"])]


def check_meshes(label, armature, glb):
    """Each glTF mesh is a mesh deformed by the armature; each of its vertices lies where a vertex
    the glTF's triangles use lies (in Blender's axes; the importer drops unused ones) and has that
    vertex's weights on the groups named after the joints."""
    gltf = glb.json
    joint_names = [gltf["nodes"][j]["name"] for j in gltf["skins"][0]["joints"]]
    objects = [o for o in bpy.data.objects if o.type == "MESH" and o.find_armature() == armature]
    mesh_nodes = [n for n in gltf["nodes"] if "mesh" in n]
    check(len(objects) == len(mesh_nodes), f"{label}: {len(objects)} meshes deformed by the armature, glTF has {len(mesh_nodes)}")
    worst_weight, compared = 0.0, 0
    for node in mesh_nodes:
        obj = next((o for o in objects if o.data.name == gltf["meshes"][node["mesh"]].get("name")), None)
        if not check(obj is not None, f"{label}: no Blender mesh for glTF mesh {node['mesh']}"):
            continue
        groups = {g.index: g.name for g in obj.vertex_groups}
        expected = []  # (position in Blender's axes, weights by joint name)
        for prim in gltf["meshes"][node["mesh"]]["primitives"]:
            a = prim["attributes"]
            positions = accessor_rows(glb, a["POSITION"], 3)
            joints = accessor_rows(glb, a["JOINTS_0"], 4)
            weights = accessor_rows(glb, a["WEIGHTS_0"], 4)
            indices = {i for (i,) in accessor_rows(glb, prim["indices"], 1)} if "indices" in prim else range(len(positions))
            for v in indices:
                influence = {}
                for jn, w in zip(joints[v], weights[v]):
                    if w > 0:
                        influence[joint_names[jn]] = influence.get(joint_names[jn], 0.0) + w
                p = positions[v]
                expected.append(((p[0], -p[2], p[1]), influence))
        vertices = obj.data.vertices
        check(len(vertices) == len(expected), f"{label}: mesh {obj.name} has {len(vertices)} vertices, the glTF's triangles use {len(expected)}")
        tree = KDTree(len(expected))
        for i, (p, _) in enumerate(expected):
            tree.insert(p, i)
        tree.balance()
        for v in vertices:
            candidates = [expected[i][1] for _, i, _ in tree.find_range(v.co, 1e-4)]
            if not check(candidates, f"{label}: mesh {obj.name} vertex {v.index} at {tuple(v.co)} is no glTF vertex"):
                break
            got = {groups[g.group]: g.weight for g in v.groups if g.weight > 0}
            worst_weight = max(worst_weight, min(max((abs(got.get(n, 0.0) - c.get(n, 0.0)) for n in set(got) | set(c)), default=0.0)
                                                 for c in candidates))
            compared += 1
    check(worst_weight < 1e-4, f"{label}: weights differ from the glTF's by {worst_weight:.3g}")
    return compared


def check_clips(label, armature, glb):
    """One NLA track per glTF animation, named after the clip, its action spanning the clip's length."""
    fps = bpy.context.scene.render.fps
    clips = glb.animations()
    data = armature.animation_data
    tracks = {t.name: t for t in data.nla_tracks} if data else {}
    check(len(tracks) == len(clips), f"{label}: {len(tracks)} NLA tracks, the glTF has {len(clips)} clips")
    for name, duration, _ in clips:
        track = tracks.get(name)
        if not check(track is not None and len(track.strips) == 1, f"{label}: no NLA track with one strip for clip '{name}'"):
            continue
        strip = track.strips[0]
        start, end = strip.action.frame_range
        check(abs(start) < 1e-3 and abs(end - duration * fps) < 1e-3,
              f"{label}: clip '{name}' ({duration} s at {fps} fps) spans frames {start}..{end}")
        check(abs(strip.frame_end - strip.frame_start - duration * fps) < 1e-3,
              f"{label}: clip '{name}' NLA strip spans {strip.frame_start}..{strip.frame_end}")
    return len(clips)


def armatures():
    return [o for o in bpy.data.objects if o.type == "ARMATURE"]


def import_case(args, label, files, cli_extra=(), expect_meshes=True, **options):
    """Imports `files`, then checks every armature against rigport's .glb of the same input."""
    clear_scene()
    outcome = import_files(files, **options)
    if not check(outcome == {"FINISHED"}, f"{label}: import returned {outcome}"):
        return
    refs = reference(args, label, [*files[:1], *cli_extra])
    got = armatures()
    check(len(got) == len(refs), f"{label}: {len(got)} armatures, rigport wrote {len(refs)} rigs")
    for armature, glb in zip(sorted(got, key=lambda a: a.name), sorted(refs, key=lambda g: g.json["skins"][0]["name"])):
        worst = check_rig(label, armature, glb)
        vertices = check_meshes(label, armature, glb)
        clips = check_clips(label, armature, glb)
        check(not expect_meshes or vertices > 0, f"{label}: no skinned vertex compared")
        print(f"ok {label}: {len(armature.data.bones)} bones (rest within {worst:.2g}), {vertices} vertices, {clips} clips")
    return got


def run_import(args):
    samples, demo = args.samples, os.path.join(args.work, "demo")
    rw, s3, bf, rw4 = (os.path.join(samples, d) for d in ("renderware", "sims3", "battleforge", "rw4"))
    dff, ifp = os.path.join(rw, "synthetic_skin_rw36003.dff"), os.path.join(rw, "synthetic_anims_anp3.ifp")
    # A model with a clip file beside it: the clip file is bound to the model (--anim).
    import_case(args, "renderware dff+anm", [dff, os.path.join(rw, "synthetic_skin_rw36003.anm")],
                ["--anim", os.path.join(rw, "synthetic_skin_rw36003.anm")])
    # An IFP package's clips chosen by a word: only walk_c of walk_c and wave_c.
    got = import_case(args, "gta ifp by clip name", [dff, ifp], ["--anim", ifp, "--clip", "walk_c"], clips="walk")
    check(got and [t.name for t in got[0].animation_data.nla_tracks] == ["walk_c"], "gta ifp: the clip filter 'walk' kept other clips")
    # Rest pose from a clip: rigport poses the nodes from walk_c at 0.25 s; the armature's rest stays
    # the bind pose its mesh is bound in (the inverse bind matrices, which check_rig compares).
    import_case(args, "gta rest pose from a clip", [dff, ifp], ["--anim", ifp, "--rest-pose", "walk_c@0.25"], rest_pose="walk_c@0.25")
    import_case(args, "renderware dff 3.3", [os.path.join(rw, "synthetic_skin_rw33002.dff")])
    import_case(args, "battleforge drs+ska", [os.path.join(bf, "synthetic_skinned_3bones_2meshes.drs"), os.path.join(bf, "synthetic_type6_root_head.ska")],
                ["--anim", os.path.join(bf, "synthetic_type6_root_head.ska")])
    import_case(args, "rw4 pc", [os.path.join(rw4, "skater_pc.rw4")])
    import_case(args, "rw4 ps3", [os.path.join(rw4, "skater_ps3.psg")])
    # A Sims 3 package holds a rig and a clip with one key per track (1 s long, extras.duration): an
    # armature with no mesh, the clip's action 30 frames long.
    got = import_case(args, "sims3 package", [os.path.join(s3, "synthetic_clip_and_rig.package")], expect_meshes=False)
    check(got and got[0].get("rigport_item") == "8EAF13DE:00000000:22E740AA495F9F1D", "sims3 package: the armature's item is not the rig's resource key")
    bone = got[0].data.bones.get("b__ROOT__") if got else None
    check(bone is not None and bone.get("nameHash") == "4272843137", "sims3 package: bone b__ROOT__ lacks its FNV32 nameHash")
    # The same rig imported twice: Blender names the second armature "b__ROOT__.001"; both stand for
    # no game bone (named after the rig, marked rigportSyntheticRoot), or an export would add one.
    check(import_files([os.path.join(s3, "synthetic_clip_and_rig.package")]) == {"FINISHED"}, "sims3 package: second import failed")
    marked = [a.name for a in armatures() if a.get("rigportSyntheticRoot")]
    check(len(marked) == 2, f"sims3 package imported twice: armatures {[a.name for a in armatures()]}, marked {marked}")
    # Items by name: the demo package's rig alone, its clip chosen by wildcard.
    got = import_case(args, "sims3 package by item and clip", [os.path.join(demo, "demo_character.package")],
                      ["--item", "8EAF13DE:00000000:74B4C1A35914E0AC", "--item", "6B20C4F3:00000000:6F78CB7E8EE3677E"], expect_meshes=False,
                      items="demo_character", clips="wa*")
    check(got and bpy.context.scene.render.fps == 30, "sims3 demo: scene not at the clip's 30 fps")
    # A clip file alone plays on the skeleton the user names.
    import_case(args, "sims3 clip on a skeleton", [os.path.join(demo, "demo_character.clip")],
                ["--skeleton", os.path.join(demo, "demo_character.package")], expect_meshes=False,
                skeleton=os.path.join(demo, "demo_character.package"))
    for stem in ("demo_character.dff", "demo_character.drs", "demo_character.psg", "demo_character.sluggers"):
        import_case(args, f"demo {stem}", [os.path.join(demo, stem)])
    import_case(args, "gltf from Blender", [os.path.join(samples, "gltf", "blender34_synthetic_skin_rw36003.glb")])

    # A folder: every file of a format rigport reads in it (here one DFF).
    clear_scene()
    folder = os.path.join(args.work, "folder")
    os.makedirs(folder, exist_ok=True)
    with open(dff, "rb") as src, open(os.path.join(folder, "ped.dff"), "wb") as dst:
        dst.write(src.read())
    check(bpy.ops.import_scene.rigport(directory=folder + os.sep) == {"FINISHED"} and len(armatures()) == 1,
          "a folder import did not give one armature")

    # Failures add nothing: a clip file without a skeleton, a clip filter matching no clip.
    clear_scene()
    objects = len(bpy.data.objects)
    check(import_files([ifp]) == {"CANCELLED"}, "an IFP without a skeleton was not refused")
    check(import_files([dff, ifp], clips="no_such_clip") == {"CANCELLED"}, "a clip filter matching nothing was not refused")
    check(len(bpy.data.objects) == objects and len(bpy.data.actions) == 0 and len(bpy.data.collections) == 0,
          "a refused import left objects, actions or collections behind")

    # A CLI path in the preferences that is no program is an error naming it.
    prefs = bpy.context.preferences.addons["rigport_blender"].preferences
    prefs.cli_path = os.path.join(args.work, "no_such_rigport")
    check(import_files([dff]) == {"CANCELLED"} and len(bpy.data.objects) == 0, "a missing rigport CLI was not refused")
    prefs.cli_path = args.rigport

    # A failure inside Blender's import (here forced after the importer made the objects) removes
    # every object, action and collection it added.
    from rigport_blender import import_rig
    clear_scene()
    real_frame_clips = import_rig.frame_clips

    def failing_frame_clips(*_):
        raise ValueError("forced by the test")

    import_rig.frame_clips = failing_frame_clips
    try:
        check(import_files([dff, os.path.join(rw, "synthetic_skin_rw36003.anm")]) == {"CANCELLED"}, "a forced failure was not reported")
    finally:
        import_rig.frame_clips = real_frame_clips
    left = [len(getattr(bpy.data, k)) for k in ("objects", "meshes", "armatures", "actions", "collections")]
    check(left == [0] * 5, f"a failed import left objects, meshes, armatures, actions, collections: {left}")

    # rigport's warnings reach the report (the BattleForge sample has a skin-mismatch warning).
    clear_scene()
    result = import_rig.import_rigs(bpy.context, args.rigport, [os.path.join(bf, "synthetic_skinned_3bones_2meshes.drs")],
                                    import_rig.ImportSettings())
    check(any("skin-mismatch" in w for w in result.warnings), f"battleforge: rigport's warning not returned: {result.warnings}")


def edit_one_bone(armature, degrees, bone=None, axis=(1, 0, 0)):
    """Rotates `bone` (by default the first animated bone) of the first clip's action by `degrees`
    about its own `axis`, at every key; returns (clip, bone), or (None, None) when the armature has
    no clip."""
    if armature.animation_data is None or not armature.animation_data.nla_tracks:
        return None, None
    track = armature.animation_data.nla_tracks[0]
    action = track.strips[0].action
    curves = [fc for fc in action.fcurves if fc.data_path.endswith("rotation_quaternion")]
    path = curves[0].data_path if bone is None else f'pose.bones["{bone}"].rotation_quaternion'
    bone = path.split('"')[1]
    quats = [fc for fc in curves if fc.data_path == path]
    if not check(len(quats) == 4, f"no rotation keys on bone '{bone}' to edit"):
        return None, None
    quats.sort(key=lambda fc: fc.array_index)
    turn = Quaternion(axis, math.radians(degrees))
    for k in range(len(quats[0].keyframe_points)):
        q = Quaternion([fc.keyframe_points[k].co[1] for fc in quats]) @ turn
        for i, fc in enumerate(quats):
            fc.keyframe_points[k].co[1] = q[i]
            fc.keyframe_points[k].handle_left[1] = q[i]
            fc.keyframe_points[k].handle_right[1] = q[i]
    for fc in quats:
        fc.update()
    return track.name, bone


def move_one_vertex(armature):
    meshes = [o for o in bpy.data.objects if o.type == "MESH" and o.find_armature() == armature]
    if meshes:
        meshes[0].data.vertices[0].co.z += 0.05
    return bool(meshes)


def compare(args, first, second, extra=()):
    import json
    done = subprocess.run([args.rigport, "compare", first, second, "--json", *extra], capture_output=True, text=True)
    return json.loads(done.stdout) if done.stdout.strip() else {"error": done.stderr}


def export_case(args, label, files, out_name, anim=None, unedited_within=None, **import_options):
    """Import, File > Export > Game rig (rigport) unedited: the written file poses like the original
    (within the formats' precision). Then rotate one bone in one clip and move one vertex, export
    again: the written file poses like what Blender exported (rigport compare, as the operator
    reports it), and differs from the original in that clip and at that vertex. `unedited_within`:
    metres an unedited export may stray from the original where Blender's sampling cannot follow the
    format's keys (default: the formats' precision, as rigport compare states it)."""
    from rigport_blender import cli, export_rig
    clear_scene()
    if not check(import_files(files, **import_options) == {"FINISHED"} and armatures(), f"{label}: import failed"):
        return
    armature = armatures()[0]
    bpy.context.view_layer.objects.active = armature
    writable = [f.name for f in cli.formats(args.rigport) if f.writes]
    target = export_rig.default_format(armature, writable)
    original = [files[0]] + (["--anim", anim] if anim else [])

    unedited = os.path.join(args.work, "export", "unedited", out_name)
    os.makedirs(os.path.dirname(unedited), exist_ok=True)
    result = export_rig.export_rig(bpy.context, args.rigport, armature, unedited, target)
    plain = compare(args, *original[:1], unedited, original[1:] + [a for f in result.files[1:] for a in ("--anim-b", f)])
    if target == "sims3-package":
        kept = check_written_into(args, label + " unedited", files[0], unedited, None)
    if target in ("renderware-dff", "rw4-arena", "sluggers-model"):
        with open(files[0], "rb") as a, open(unedited, "rb") as b:
            check(a.read() == b.read(), f"{label}: an unedited export into a copy of the original is not the original byte for byte")
    if unedited_within is None:
        check(plain.get("same") is True, f"{label}: an unedited export does not pose like the original: {worst_text(plain)}")
    else:
        check(export_rig.worst_measure(plain)[1] < unedited_within, f"{label}: an unedited export strays from the original: {worst_text(plain)}")

    clip, bone = edit_one_bone(armature, 25.0)
    moved = move_one_vertex(armature)
    out = os.path.join(args.work, "export", "edited", out_name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    check(bpy.ops.export_scene.rigport(filepath=out, target="AUTO") == {"FINISHED"}, f"{label}: export operator failed")
    result = export_rig.export_rig(bpy.context, args.rigport, armature, out, target)
    check(result.compare.get("same") is True, f"{label}: the written file is not within precision of Blender's export: {worst_text(result.compare)}")
    edited = compare(args, *original[:1], out, original[1:] + [a for f in result.files[1:] for a in ("--anim-b", f)] +
                     (["--clip", clip] if clip else []))
    clip_joints = next((m for m in edited.get("measures", []) if m["measure"] == "clip joints"), {})
    if clip:
        compared = [c["second"] for c in result.compare.get("matched", {}).get("clips", []) if c.get("first") == clip]
        check(compared == [clip], f"{label}: clip '{clip}' not compared by name: {result.compare.get('matched')}")
        check(clip_joints.get("within") is False and clip_joints.get("worst", 0) > 10 * edited.get("tolerance", 1),
              f"{label}: the written clip '{clip}' does not differ from the original's: {clip_joints}")
    if moved:
        bind = next((m for m in edited.get("measures", []) if m["measure"] == "bind vertices"), {})
        check(bind.get("worst", 0) > 0.04, f"{label}: the moved vertex did not reach the written file: {bind}")
    if target == "sims3-package":
        kept = check_written_into(args, label, files[0], out, clip)
        print(f"ok {label}: written into a copy of the original, {kept} resources byte for byte")
    # A clip's events ride the action's custom properties through Blender (the glTF importer drops
    # animation extras): the written clips hold as many as the original's.
    before_events, after_events = events_of(args, files[0]), events_of(args, out)
    check(all(after_events.get(name) == count for name, count in before_events.items()),
          f"{label}: events per clip {before_events} in the original, {after_events} written")
    print(f"ok {label}: events {after_events}, unedited within {worst_text(plain)}; {clip}/{bone} edited, written "
          f"{', '.join(os.path.basename(f) for f in result.files)}, within {worst_text(result.compare)} of Blender's export, "
          f"original differs by {clip_joints.get('worst', 0):.3g}")


def rename_case(args, label, original, out_name, old, new):
    """Import, rename bone `old` to `new` in Blender, export into a copy of the original (issue 28):
    the new name is written where the old one was, the file growing by the names' difference (a DFF's
    Node Name chunk and the chunks around it) or not at all (an arena's name pool)."""
    from rigport_blender import cli, export_rig
    clear_scene()
    if not check(import_files([original]) == {"FINISHED"} and armatures(), f"{label}: import failed"):
        return
    armature = armatures()[0]
    bpy.context.view_layer.objects.active = armature
    armature.data.bones[old].name = new
    out = os.path.join(args.work, "export", "renamed", out_name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    writable = [f.name for f in cli.formats(args.rigport) if f.writes]
    try:
        export_rig.export_rig(bpy.context, args.rigport, armature, out, export_rig.default_format(armature, writable))
    except cli.RigportError as error:
        check(False, f"{label}: the renamed armature was not written: {error}")
        return
    with open(original, "rb") as a, open(out, "rb") as b:
        before, after = a.read(), b.read()
    counts = [(after.count(n.encode()) - before.count(n.encode())) for n in (old, new)]
    check(counts == [-1, 1], f"{label}: '{old}' and '{new}' occur {counts} times more in the written file than in the original")
    growth = len(after) - len(before)
    check(growth == (len(new) - len(old) if out_name.endswith(".dff") else 0), f"{label}: the written file grew by {growth} bytes")
    print(f"ok {label}: '{old}' renamed '{new}' in Blender, written into a copy of the original ({growth:+d} bytes)")


def package_resources(path):
    """[(key, compression, stored bytes)] of a DBPF 2.0 package whose index stores every key field
    (flags 0, as rigport writes it): sims3_clip.md §4."""
    import struct
    data = open(path, "rb").read()
    count, = struct.unpack_from("<I", data, 0x24)
    at, = struct.unpack_from("<I", data, 0x40)
    flags, = struct.unpack_from("<I", data, at)
    check(flags == 0, f"{path}: index flags {flags}")
    out = []
    for n in range(count):
        kind, group, hi, lo, offset, size, _, compression, _ = struct.unpack_from("<IIIIIIIHH", data, at + 4 + 32 * n)
        size &= 0x7FFFFFFF
        out.append(((kind, group, hi << 32 | lo), compression, data[offset:offset + size]))
    return out


def check_written_into(args, label, original, written, edited_clip):
    """The written package is the original's resources, in order, under their keys, byte for byte,
    but the edited clip's (named `edited_clip`, or none)."""
    import json
    items = json.loads(subprocess.run([args.rigport, "info", "--json", original], capture_output=True, text=True).stdout)[0]["items"]
    edited = {i["id"] for i in items if i["kind"] == "clip" and i["name"] == edited_clip}
    before, after = package_resources(original), package_resources(written)
    check([r[0] for r in after] == [r[0] for r in before], f"{label}: resources re-keyed or moved: {[r[0] for r in after]}")
    changed = []
    for (key, compression, data), (_, was_compression, was) in zip(after, before):
        if (data, compression) != (was, was_compression):
            changed.append("%08X:%08X:%016X" % key)
    check(set(changed) == edited, f"{label}: changed resources {changed}, edited {sorted(edited)}")
    return len(before) - len(changed)


def events_of(args, path):
    """{clip: event count} of a file, as `rigport info --json` counts them."""
    import json
    done = subprocess.run([args.rigport, "info", "--json", path], capture_output=True, text=True)
    entry = json.loads(done.stdout)[0]
    return {a["name"]: a.get("events", 0) for holder in entry.get("rigs", []) + entry.get("clipSets", [])
            for a in holder.get("animations", [])}


def worst_text(compare_json):
    from rigport_blender import export_rig
    measure, worst, where = export_rig.worst_measure(compare_json)
    return f"{worst:.3g} m ({measure} {where}; tolerance {compare_json.get('tolerance', 0):.3g})"


def write_glb(gltf, binary, path):
    import json
    import struct
    text = json.dumps(gltf).encode("utf-8")
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    with open(path, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(binary)))
        f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
        f.write(struct.pack("<II", len(binary), 0x004E4942) + binary)


def one_key_clip_case(args):
    """A clip whose every channel holds one key yet lasts 0.5 s (issue 28: it imported as a 1-frame
    action, its length only in extras): rigport's .glb of the demo package with each sampler cut to
    its first key and extras.duration 0.5, written to a Sims 3 package by rigport; imported through
    the add-on, its action and NLA strip span frames 0..15 at 30 fps."""
    demo = os.path.join(args.work, "demo")
    glb = reference(args, "one key source", [os.path.join(demo, "demo_character.package")])[0]
    gltf = glb.json
    for anim in gltf["animations"]:
        anim.setdefault("extras", {})["duration"] = 0.5
        for sampler in anim["samplers"]:
            sampler["interpolation"] = "LINEAR"
            for key in ("input", "output"):
                accessor = gltf["accessors"][sampler[key]]
                accessor["count"] = 1
                accessor.pop("min", None)
                accessor.pop("max", None)
            gltf["accessors"][sampler["input"]].update({"min": [0.0], "max": [0.0]})
    folder = os.path.join(args.work, "one_key")
    os.makedirs(folder)
    write_glb(gltf, glb.bin, os.path.join(folder, "one_key.glb"))
    done = subprocess.run([args.rigport, "convert", os.path.join(folder, "one_key.glb"), "--to", "sims3-package", "-o",
                           os.path.join(folder, "one_key.package")], capture_output=True, text=True)
    if not check(done.returncode == 0, f"one-key clip: rigport could not write the package: {done.stderr}"):
        return
    clear_scene()
    check(import_files([os.path.join(folder, "one_key.package")]) == {"FINISHED"}, "one-key clip: import failed")
    strip = armatures()[0].animation_data.nla_tracks["walk"].strips[0]
    keys = {len(fc.keyframe_points) for fc in strip.action.fcurves}
    check(keys == {1}, f"one-key clip: the action's curves hold {keys} keys, not one")
    check(tuple(strip.action.frame_range) == (0.0, 15.0) and strip.frame_end - strip.frame_start == 15.0,
          f"one-key clip: action spans {tuple(strip.action.frame_range)}, strip {strip.frame_start}..{strip.frame_end}")
    print(f"ok one-key clip: {keys} key per curve, action frames {tuple(strip.action.frame_range)}")


def run_export(args):
    one_key_clip_case(args)
    demo, samples = os.path.join(args.work, "demo"), args.samples
    export_case(args, "renderware dff+anm", [os.path.join(demo, "demo_character.dff"), os.path.join(demo, "demo_character.anm")],
                "rw/demo_character.dff", anim=os.path.join(demo, "demo_character.anm"))
    export_case(args, "rw4 arena", [os.path.join(demo, "demo_character.psg")], "rw4/demo_character.psg")
    rename_case(args, "renderware dff rename", os.path.join(demo, "demo_character.dff"), "rw/renamed.dff", "neck", "collar_bone")
    rename_case(args, "rw4 arena rename", os.path.join(demo, "demo_character.psg"), "rw4/renamed.psg", "neck", "nck")
    export_case(args, "sluggers model", [os.path.join(demo, "demo_character.sluggers")], "sluggers/demo_character.sluggers")
    # The SKA's Hermite keys lie between the frames Blender's exporter samples at (30 per second):
    # between samples the written keys follow straight segments, 2.9 mm off the original's curves.
    export_case(args, "battleforge drs+ska", [os.path.join(demo, "demo_character.drs"), os.path.join(demo, "demo_character.ska")],
                "bf/demo_character.drs", anim=os.path.join(demo, "demo_character.ska"), unedited_within=0.005)
    export_case(args, "sims3 package", [os.path.join(demo, "demo_character.package")], "s3/demo_character.package")
    # Its root turns 2 rad in 10 frames: keyed on every frame (ImportSettings.key_every_frame), else
    # Blender's per-curve quaternion interpolation strays 3.8 cm from the clip.
    export_case(args, "sims3 sample package", [os.path.join(samples, "sims3", "synthetic_clip_and_rig.package")], "s3/sample.package",
                key_every_frame=True)


def render_setup(scene):
    """A fixed camera three quarters in front of a 1.8 m figure standing at the origin (Blender's Z up,
    facing -Y as glTF's +Z imports), a floor at z = 0, a sun, a grey world; Cycles on the CPU, few
    samples, fixed seed: the same scene gives the same picture."""
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 16
    scene.cycles.seed = 1
    scene.cycles.use_denoising = False  # Debian builds Blender without OpenImageDenoise
    scene.render.resolution_x, scene.render.resolution_y = 480, 360
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.compression = 100
    from mathutils import Vector
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.location = (2.7, -3.5, 1.4)
    camera.rotation_euler = (Vector((0, 0, 0.9)) - camera.location).to_track_quat("-Z", "Y").to_euler()
    scene.collection.objects.link(camera)
    floor = bpy.data.meshes.new("Floor")
    floor.from_pydata([(-3, -3, 0), (3, -3, 0), (3, 3, 0), (-3, 3, 0)], [], [(0, 1, 2, 3)])
    floor.materials.append(bpy.data.materials.new("Floor"))
    floor.materials[0].diffuse_color = (0.25, 0.27, 0.3, 1)  # Cycles' default surface takes this colour
    scene.collection.objects.link(bpy.data.objects.new("Floor", floor))
    scene.camera = camera
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3
    sun.rotation_euler = (0.6, 0.2, 0.8)
    scene.collection.objects.link(sun)
    scene.world = bpy.data.worlds.new("World")
    scene.world.color = (0.6, 0.6, 0.65)


def render(args, name, frame, docs=True):
    scene = bpy.context.scene
    if scene.camera is None:
        render_setup(scene)
    scene.frame_set(frame)
    scene.render.filepath = os.path.join(args.work, "walkthrough", name)
    bpy.ops.render.render(write_still=True)
    if args.docs and docs:
        shutil.copyfile(scene.render.filepath, os.path.join(args.docs, name))
    image = bpy.data.images.load(scene.render.filepath)
    import numpy
    pixels = numpy.array(image.pixels[:], dtype=numpy.float32).reshape(image.size[1], image.size[0], 4)[:, :, :3]
    bpy.data.images.remove(image)
    return pixels


def changed(a, b):
    """Share of pixels whose colour differs by more than 0.1 in some channel."""
    return float((abs(a - b).max(axis=2) > 0.1).mean())


def run_walkthrough(args):
    """README's walkthrough (the demo's DFF and .anm): imported, an arm raised in the clip, written
    back to a DFF and imported again, each rendered at the clip's frame 10."""
    from rigport_blender import export_rig, import_rig
    demo = os.path.join(args.work, "demo")
    clear_scene()
    empty = render(args, "walkthrough_0_empty.png", 10, docs=False)
    files = [os.path.join(demo, "demo_character.dff"), os.path.join(demo, "demo_character.anm")]
    if not check(import_files(files) == {"FINISHED"} and armatures(), "walkthrough: import failed"):
        return
    imported = render(args, "walkthrough_1_imported.png", 10)
    check(changed(empty, imported) > 0.03, f"walkthrough: the imported figure covers {changed(empty, imported):.1%} of the picture")

    armature = armatures()[0]
    clip, bone = edit_one_bone(armature, -70.0, "upperarm_l", (0, 0, 1))
    edited = render(args, "walkthrough_2_edited.png", 10)
    check(changed(imported, edited) > 0.005, f"walkthrough: raising {bone} in '{clip}' changed {changed(imported, edited):.2%} of the picture")

    bpy.context.view_layer.objects.active = armature
    out = os.path.join(args.work, "walkthrough", "demo_character_edited.dff")
    # What File > Export > Game rig (rigport) runs, into a copy of the original DFF.
    written = export_rig.export_rig(bpy.context, args.rigport, armature, out, "renderware-dff")
    check(written.compare.get("same") is True, f"walkthrough: the written DFF is not within precision of Blender's export: {worst_text(written.compare)}")
    clear_scene()
    # The written DFF picked alone in the file browser: its clip comes from the folder the export
    # wrote beside it (demo_character_edited_clips/), which the browser cannot pick from at once.
    check(len(written.files) == 2 and os.path.dirname(written.files[1]).endswith("_clips"),
          f"walkthrough: the export wrote {written.files}, not the DFF and its clips folder")
    if not check(import_files(written.files[:1]) == {"FINISHED"} and armatures(), f"walkthrough: the written {written.files[0]} does not import"):
        return
    tracks = [t.name for t in armatures()[0].animation_data.nla_tracks] if armatures()[0].animation_data else []
    check(tracks == [clip], f"walkthrough: the written DFF imported alone brought the clips {tracks}, not ['{clip}']")
    back = render(args, "walkthrough_3_written_back.png", 10)
    # The game file shows the edit: its picture is the edited one (within Cycles' noise on geometry
    # that moved by the formats' precision), not the original.
    check(changed(edited, back) < 0.002, f"walkthrough: the written DFF's picture differs from the edited one in {changed(edited, back):.2%}")
    check(changed(imported, back) > 0.005, "walkthrough: the written DFF lost the raised arm")
    print(f"ok walkthrough: edit changed {changed(imported, edited):.2%} of the picture, written back {changed(edited, back):.3%} off it")


def main():
    args = parse_args()
    started = time.time()
    # A fresh folder each run (the Blender user folders beside it are the add-on's install).
    args.work = os.path.join(args.work, "run")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    subprocess.run([args.rigport, "demo", os.path.join(args.work, "demo")], check=True, capture_output=True)
    install(args.zip, args.rigport)
    {"import": run_import, "export": run_export, "walkthrough": run_walkthrough}[args.part](args)
    print(f"{args.part}: {len(failures)} failure(s) in {time.time() - started:.1f} s")
    if failures:
        raise SystemExit(1)


main()
