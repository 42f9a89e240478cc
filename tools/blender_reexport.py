# Imports a .glb/.gltf into Blender headless and exports it again with Blender's own glTF exporter:
# the modding round trip (edit in Blender, export, `rigport convert --to` a game format) in tests.
# Run: blender -b --factory-startup --python-exit-code 1 --python tools/blender_reexport.py -- IN.glb OUT.glb
# bone_heuristic='BLENDER' keeps each bone's orientation as the glTF node has it (the default,
# TEMPERANCE, re-aims bones at their children, which changes every rest rotation and inverse bind
# matrix on export); export_extras keeps rigport's node extras (bone ids) as custom properties do.
import sys

import numpy

# Debian's numpy 1.24 removed numpy.bool, which Blender 3.4's glTF importer still uses
# (KhronosGroup/glTF-Blender-IO#1844; gltf_ecosystem.md §2.3 trap 2).
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402  (after the numpy fix-up)


def main(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if len(args) != 2:
        raise SystemExit("usage: blender -b --python blender_reexport.py -- IN.glb OUT.glb")
    source, target = args
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.import_scene.gltf(filepath=source, bone_heuristic="BLENDER")
    if "FINISHED" not in result:
        raise RuntimeError(f"glTF import of {source} returned {result}")
    result = bpy.ops.export_scene.gltf(filepath=target, export_format="GLB", export_animations=True, export_skins=True,
                                       export_extras=True)
    if "FINISHED" not in result:
        raise RuntimeError(f"glTF export to {target} returned {result}")


main(sys.argv)
