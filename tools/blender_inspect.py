# Imports a .glb/.gltf into Blender headless and writes what Blender made of it as JSON.
# Run: blender -b --factory-startup --python-exit-code 1 --python tools/blender_inspect.py -- IN.glb OUT.json
# (--python-exit-code 1: Blender exits 0 on a Python error otherwise; format note
# gltf_ecosystem.md §2.3 trap 3.)
# Output: {"armatures": [{"name", "bones": [{"name", "parent"}]}],
#          "meshes": [{"name", "vertexCount", "positions": [[x, y, z] per vertex, Blender's Z-up],
#                      "vertexGroups": [names], "weights": [{group: weight} per vertex, non-zero only],
#                      "shapeKeys": [{"name", "value"}] (the Basis first; empty without shape keys)}],
#          "actions": [{"name", "fcurves": [{"data_path", "array_index", "keyframes", "first_frame", "last_frame"}]}],
#          "empties": [{"name", "parent"}] (nodes that are no skin's joints),
#          "fps": scene frames per second}
import json
import sys

import numpy

# Debian's numpy 1.24 removed numpy.bool, which Blender 3.4's glTF importer still uses
# (KhronosGroup/glTF-Blender-IO#1844, not backported to 3.4): §2.3 trap 2.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402  (after the numpy fix-up)


def main(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if len(args) != 2:
        raise SystemExit("usage: blender -b --python blender_inspect.py -- IN.glb OUT.json")
    source, target = args
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.import_scene.gltf(filepath=source)
    if "FINISHED" not in result:
        raise RuntimeError(f"glTF import of {source} returned {result}")

    out = {"fps": bpy.context.scene.render.fps, "armatures": [], "meshes": [], "actions": [], "empties": []}
    for obj in bpy.data.objects:
        if obj.type == "ARMATURE":
            out["armatures"].append({
                "name": obj.name,
                "bones": [{"name": b.name, "parent": b.parent.name if b.parent else None} for b in obj.data.bones],
            })
        elif obj.type == "EMPTY":
            out["empties"].append({"name": obj.name, "parent": obj.parent.name if obj.parent else None})
        elif obj.type == "MESH":
            groups = [g.name for g in obj.vertex_groups]
            weights = []
            for v in obj.data.vertices:
                weights.append({groups[g.group]: g.weight for g in v.groups if g.weight != 0.0})
            out["meshes"].append({
                "name": obj.name,
                "vertexCount": len(obj.data.vertices),
                "positions": [list(v.co) for v in obj.data.vertices],
                "vertexGroups": groups,
                "weights": weights,
                "shapeKeys": [{"name": k.name, "value": k.value} for k in obj.data.shape_keys.key_blocks] if obj.data.shape_keys else [],
            })
    for action in bpy.data.actions:
        curves = []
        for fc in action.fcurves:
            points = fc.keyframe_points
            curves.append({
                "data_path": fc.data_path,
                "array_index": fc.array_index,
                "keyframes": len(points),
                "first_frame": points[0].co[0] if len(points) else None,
                "last_frame": points[-1].co[0] if len(points) else None,
            })
        out["actions"].append({"name": action.name, "fcurves": curves})
    with open(target, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)


main(sys.argv)
