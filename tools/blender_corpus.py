# The writer corpus (issue 27, "What it must show"): glTF written by other tools, made here from the
# demo character's .glb (`rigport demo`), never committed. Blender 3.4 imports the character once per case, edits it
# the way a modder would and exports it with the glTF exporter's options for that case; gltfpack then
# packs the default export with and without quantisation. One Blender process makes every file (its
# start-up is the slow part). tests/writer_corpus_test.cpp writes each one back to every game format.
# Run: blender -b --factory-startup --python-exit-code 1 --python tools/blender_corpus.py --
#          --rigport build/rigport --gltfpack /usr/bin/gltfpack --out DIR
# Import as the README's modding workflow says (Bone Dir "Blender": bones keep the glTF nodes'
# orientation); every export starts from the exporter's defaults, with the case's options on top.
import argparse
import os
import shutil
import subprocess
import sys

import numpy

# Debian's numpy 1.24 removed numpy.bool, which Blender 3.4's glTF importer still uses
# (KhronosGroup/glTF-Blender-IO#1844; gltf_ecosystem.md §2.3 trap 2).
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402  (after the numpy fix-up)
from mathutils import Matrix, Vector  # noqa: E402


def armature():
    return next(o for o in bpy.data.objects if o.type == "ARMATURE")


def skinned_meshes():
    return [o for o in bpy.data.objects if o.type == "MESH"]


def armature_fcurves():
    return armature().animation_data.action.fcurves


def keys_as(interpolation, bones=None):
    # Every key of `bones` (all bones when None) takes `interpolation` (Blender's CONSTANT is glTF's
    # STEP, BEZIER is CUBICSPLINE when the exporter does not sample).
    for fc in armature_fcurves():
        if bones is None or any(f'"{b}"' in fc.data_path for b in bones):
            for k in fc.keyframe_points:
                k.interpolation = interpolation


def step_and_linear():
    # The pelvis and the left leg hold each key (STEP), the rest stays LINEAR, in one clip.
    keys_as("LINEAR")
    keys_as("CONSTANT", ["pelvis", "thigh_l", "calf_l"])


def eight_influences():
    # Each vertex also leans on the ancestors of its bones, up to eight bones in all (the demo has up
    # to four): Blender keeps them with "Include All Bone Influences".
    bones = armature().data.bones
    for mesh in skinned_meshes():
        groups = mesh.vertex_groups
        for v in mesh.data.vertices:
            have = [groups[g.group].name for g in v.groups if g.weight > 0.0]
            extra = []
            for name in have:
                bone = bones.get(name)
                while bone is not None and bone.parent is not None and len(have) + len(extra) < 8:
                    bone = bone.parent
                    if bone.name not in have and bone.name not in extra:
                        extra.append(bone.name)
            for name in extra:
                group = groups.get(name) or groups.new(name=name)
                group.add([v.index], 0.06, "REPLACE")


def shape_keys():
    # A "Bulge" shape key on the upper half, pushed out along the normals, at 0.3 at rest and keyed
    # from 0 to 1 over the clip: glTF morph targets, default weights and a weights channel.
    for mesh in skinned_meshes():
        mesh.shape_key_add(name="Basis")
        bulge = mesh.shape_key_add(name="Bulge", from_mix=False)
        top = max(v.co.z for v in mesh.data.vertices)
        for v in mesh.data.vertices:
            if v.co.z > top * 0.5:
                bulge.data[v.index].co = v.co + v.normal * 0.04
        bulge.value = 0.0
        bulge.keyframe_insert("value", frame=1)
        bulge.value = 1.0
        bulge.keyframe_insert("value", frame=20)
        bulge.value = 0.3


def scaled_armature(scale):
    def edit():
        armature().scale = scale
    return edit


def mesh_offset():
    # The skinned mesh object moved away from its armature: Blender draws the skin shifted by it.
    for mesh in skinned_meshes():
        mesh.location = mesh.location + Vector((0.3, -0.2, 0.1))


def two_actions():
    # A second action on the armature ("wave": the walk's keys reversed in time); the exporter's
    # default "Export all Armature Actions" writes both.
    walk = armature().animation_data.action
    wave = walk.copy()
    wave.name = "wave"
    wave.use_fake_user = True
    for fc in wave.fcurves:
        values = [k.co[1] for k in fc.keyframe_points]
        for k, value in zip(fc.keyframe_points, reversed(values)):
            k.co[1] = value
            k.handle_left[1] = value
            k.handle_right[1] = value


def prop_on_bone():
    # A helmet: an unskinned 0.2 m box parented to the head bone (Blender's bone parenting, which
    # puts the child at the bone's tail), 0.15 m above it.
    mesh = bpy.data.meshes.new("helmet")
    corners = [((i & 1) * 0.2 - 0.1, (i & 2) * 0.1 - 0.1, (i & 4) * 0.05 - 0.1) for i in range(8)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh.from_pydata(corners, [], faces)
    helmet = bpy.data.objects.new("helmet", mesh)
    bpy.context.scene.collection.objects.link(helmet)
    helmet.parent = armature()
    helmet.parent_type = "BONE"
    helmet.parent_bone = "head"
    helmet.matrix_parent_inverse = Matrix.Identity(4)
    helmet.location = (0.0, 0.15, 0.0)


def many_bones():
    # 300 bones more (30 hair chains of 10 under the head): 327 joints, more than a 256-entry palette.
    rig = armature()
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    edit_bones = rig.data.edit_bones
    head = edit_bones["head"]
    for chain in range(30):
        parent = head
        for link in range(10):
            bone = edit_bones.new(f"hair_{chain:02d}_{link}")
            bone.head = parent.tail if link else head.tail + Vector(((chain % 6) * 0.02 - 0.05, (chain // 6) * 0.02 - 0.04, 0.0))
            bone.tail = bone.head + Vector((0.0, 0.0, 0.01))
            bone.parent = parent
            parent = bone
    bpy.ops.object.mode_set(mode="OBJECT")


# name: (edit before export or None, exporter options beyond the defaults, file extension)
CASES = {
    "default": (None, {}, ".glb"),
    "zup": (None, {"export_yup": False}, ".glb"),
    "nobake": (None, {"export_force_sampling": False}, ".glb"),
    "step_linear": (step_and_linear, {"export_force_sampling": False}, ".glb"),
    "bezier": (lambda: keys_as("BEZIER"), {"export_force_sampling": False}, ".glb"),
    "influences8": (eight_influences, {"export_all_influences": True}, ".glb"),
    "shape_keys": (shape_keys, {}, ".glb"),
    "nonuniform_scale": (scaled_armature((1.0, 1.4, 0.7)), {}, ".glb"),
    "mirrored_scale": (scaled_armature((-1.0, 1.0, 1.0)), {}, ".glb"),
    "mesh_offset": (mesh_offset, {}, ".glb"),
    "two_actions": (two_actions, {}, ".glb"),
    "separate": (None, {"export_format": "GLTF_SEPARATE"}, ".gltf"),
    "prop_on_bone": (prop_on_bone, {}, ".glb"),
    "many_bones": (many_bones, {}, ".glb"),
}

# gltfpack's defaults (quantised positions, KHR_mesh_quantization, 30 Hz resampling) and -noq.
PACKED = {"gltfpack": [], "gltfpack_noq": ["-noq"]}


def export_case(source, out, name):
    edit, options, extension = CASES[name]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if "FINISHED" not in bpy.ops.import_scene.gltf(filepath=source, bone_heuristic="BLENDER"):
        raise RuntimeError(f"glTF import of {source} failed")
    if edit:
        edit()
    target = os.path.join(out, name + extension)
    settings = {"export_format": "GLB", **options}
    if "FINISHED" not in bpy.ops.export_scene.gltf(filepath=target, **settings):
        raise RuntimeError(f"glTF export of case {name} failed")
    return target


def main(argv):
    parser = argparse.ArgumentParser(prog="blender_corpus.py")
    parser.add_argument("--rigport", required=True, help="the rigport program, whose demo gives the character")
    parser.add_argument("--gltfpack", required=True, help="the gltfpack program")
    parser.add_argument("--out", required=True, help="folder the corpus is written to")
    args = parser.parse_args(argv[argv.index("--") + 1:] if "--" in argv else [])
    shutil.rmtree(args.out, ignore_errors=True)  # a failed run leaves no stale corpus behind
    os.makedirs(args.out)
    demo = os.path.join(args.out, "demo")
    subprocess.run([args.rigport, "demo", "--no-validate", demo], check=True, stdout=subprocess.DEVNULL)
    source = os.path.join(demo, "demo_character.glb")
    made = {name: export_case(source, args.out, name) for name in CASES}
    for name, flags in PACKED.items():
        target = os.path.join(args.out, name + ".glb")
        subprocess.run([args.gltfpack, *flags, "-i", made["default"], "-o", target], check=True)
    print("corpus:", ", ".join(list(CASES) + list(PACKED)))


main(sys.argv)
