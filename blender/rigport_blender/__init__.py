# rigport for Blender: File > Import > Game rig (rigport) and File > Export > Game rig (rigport),
# driving the rigport command line (README.md, "Blender add-on").
bl_info = {
    "name": "rigport: game rigs (RenderWare, RW4, The Sims 3, BattleForge, Mario Super Sluggers)",
    "author": "rigport",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > Game rig (rigport), File > Export > Game rig (rigport)",
    "description": "Imports game skeletons, skinned meshes and clips through the rigport CLI, and writes edits back",
    "category": "Import-Export",
}

import bpy  # noqa: E402


def numpy_bool_fix():
    """Debian's numpy 1.24 removed numpy.bool, which Blender 3.4's glTF importer still uses
    (KhronosGroup/glTF-Blender-IO#1844, fixed in 3.5 and not backported; gltf_ecosystem.md §2.3)."""
    if bpy.app.version >= (3, 5, 0):
        return
    import numpy
    if "bool" not in vars(numpy):  # hasattr would warn (numpy.__getattr__)
        numpy.bool = bool


def register():
    from . import operators
    numpy_bool_fix()
    operators.register()


def unregister():
    from . import operators
    operators.unregister()
