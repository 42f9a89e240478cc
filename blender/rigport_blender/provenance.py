# Where an imported armature came from, kept as custom properties so the export writes it back to its
# format and a script can find the game's ids: the armature object holds the source file, its format,
# the item and the rig's own format; each bone holds what rigport's glTF node extras say (boneId,
# nameHash, nameHashKind, originalName), which Blender's importer copies onto bones and pose bones.
import os

import bpy

SOURCE = "rigport_source"            # absolute path of the game file
FORMAT = "rigport_format"            # `rigport formats` name of that file, e.g. sims3-package
RIG_FORMAT = "rigport_rig_format"    # the rig's own format inside it, e.g. sims3-rig
ITEM = "rigport_item"                # the container item the rig is, as `rigport info` lists it
ANIMATION_FILES = "rigport_animation_files"  # clip files bound to it, ';'-separated
SOURCE_AXES = "rigport_source_up"    # the source's up axis (Y or Z)


def record(armature, job, glb):
    extras = glb.asset_extras
    armature[SOURCE] = os.path.abspath(job.path)
    armature[FORMAT] = job.info.get("format", "")
    armature[RIG_FORMAT] = extras.get("format", "")
    armature[ITEM] = rig_item(job, glb)
    armature[ANIMATION_FILES] = ";".join(a for i, a in enumerate(job.options) if i > 0 and job.options[i - 1] == "--anim")
    armature[SOURCE_AXES] = extras.get("sourceAxes", {}).get("up", "")


def rig_item(job, glb):
    """The item of the rig a file was written from: the rig named like the glTF's scene (rigport names
    the scene after the rig, with '_scene' added when a node has that name), else the file's one rig."""
    for scene in glb.json.get("scenes", []):
        name = scene.get("name", "")
        found = job.item_of(name) or job.item_of(name[:-len("_scene")] if name.endswith("_scene") else "")
        if found:
            return found
    rigs = [i for i in job.info.get("items", []) if i.get("kind") == "rig"]
    return rigs[0]["id"] if len(rigs) == 1 else ""


# The data-block collections an import adds to; on failure, whatever is new in them is removed.
KINDS = ("objects", "meshes", "armatures", "actions", "materials", "images", "textures", "collections", "node_groups")


class DataSnapshot:
    def __init__(self):
        self.before = {kind: set(getattr(bpy.data, kind)) for kind in KINDS}

    def remove_added(self):
        for kind in KINDS:
            blocks = getattr(bpy.data, kind)
            for block in [b for b in blocks if b not in self.before[kind]]:
                blocks.remove(block)
