# The two menu entries and the add-on's preferences: they gather the user's choices and report; the
# work is in import_rig.py and export_rig.py.
import os

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import cli, export_rig, import_rig, provenance

ADDON = __package__
# Shown one per line in the report area; the rest are counted.
MAX_REPORTED_WARNINGS = 20


class RigportPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON

    cli_path: StringProperty(
        name="rigport CLI",
        description="Path of the rigport program; empty: the rigport found on PATH",
        subtype="FILE_PATH",
        default="",
    )

    def draw(self, context):
        self.layout.prop(self, "cli_path")


def cli_path(context):
    prefs = context.preferences.addons[ADDON].preferences
    return cli.find_cli(prefs.cli_path)


def report_warnings(operator, warnings):
    for line in warnings[:MAX_REPORTED_WARNINGS]:
        operator.report({"WARNING"}, line)
    if len(warnings) > MAX_REPORTED_WARNINGS:
        operator.report({"WARNING"}, f"{len(warnings) - MAX_REPORTED_WARNINGS} more rigport warnings")


class IMPORT_SCENE_OT_rigport(bpy.types.Operator, ImportHelper):
    """Import game rigs (skeleton, skinned meshes, clips) through rigport"""
    bl_idname = "import_scene.rigport"
    bl_label = "Import Game Rig (rigport)"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default="*", options={"HIDDEN"})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    items: StringProperty(
        name="Items",
        description="Only these items of a container (ids or names as `rigport info` lists them), comma-separated; "
                    "empty: every rig")
    clips: StringProperty(
        name="Clips",
        description="Only the clips whose name holds one of these words or matches one of these wildcards "
                    "(walk, run*, idle_?), comma-separated; empty: every clip")
    skeleton: StringProperty(
        name="Skeleton",
        description="The skeleton clip files play on, FILE or FILE#ITEM (for clip files imported without their model)",
        subtype="FILE_PATH")
    rest_pose: StringProperty(
        name="Rest Pose",
        description="CLIP[@SECONDS]: every bone's rest from that clip; 'bind': the bind pose; empty: the format's default")
    feet_on_ground: BoolProperty(
        name="Feet on the Ground",
        description="Lift a model whose origin is above its feet (a GTA ped) onto the ground",
        default=True)
    key_every_frame: BoolProperty(
        name="Key Every Frame",
        description="Key every bone on every frame, so Blender's per-curve interpolation cannot stray from the clip "
                    "between keys far apart (exact round trips; more keys to edit)",
        default=False)

    def paths(self):
        names = [f.name for f in self.files if f.name]
        if names:
            return [os.path.join(self.directory, n) for n in names]
        return [self.directory or self.filepath]  # no file chosen: the folder

    def execute(self, context):
        settings = import_rig.ImportSettings(self.items, self.clips, self.skeleton, self.rest_pose, self.feet_on_ground,
                                               self.key_every_frame)
        try:
            result = import_rig.import_rigs(context, cli_path(context), self.paths(), settings)
        except cli.RigportError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        report_warnings(self, result.warnings)
        self.report({"INFO"}, f"rigport: {len(result.armatures)} armature(s) imported")
        return {"FINISHED"}


# Enum items built by a callback must outlive it (Blender keeps pointers to their strings), and
# asking the CLI on every redraw would be slow: one list per CLI path.
FORMAT_ITEMS = {}


def writable_formats(self, context):
    try:
        path = cli_path(context)
    except cli.RigportError:
        path = ""
    if path not in FORMAT_ITEMS:
        rows = cli.formats(path) if path else []
        FORMAT_ITEMS[path] = [("AUTO", "As Imported", "The format the armature was imported from")] + [
            (f.name, f.name, ", ".join(f.extensions)) for f in rows if f.writes]
    return FORMAT_ITEMS[path]


def armature_of(context):
    obj = context.active_object
    if obj is not None and obj.type != "ARMATURE":
        obj = obj.find_armature() if obj.type == "MESH" else None
    return obj if obj is not None and obj.type == "ARMATURE" else None


class EXPORT_SCENE_OT_rigport(bpy.types.Operator, ExportHelper):
    """Write the active armature, its meshes and clips back to a game format through rigport"""
    bl_idname = "export_scene.rigport"
    bl_label = "Export Game Rig (rigport)"

    filename_ext = ""
    check_extension = None
    filter_glob: StringProperty(default="*", options={"HIDDEN"})
    target: EnumProperty(name="Format", description="The game format to write", items=writable_formats)
    into_original: BoolProperty(
        name="Into a Copy of the Original",
        description="Where the armature came from a Sims 3 package or a RenderWare DFF: write into a copy of it, every "
                    "resource or chunk the edit did not touch kept byte for byte (rigport convert --base)",
        default=True)

    @classmethod
    def poll(cls, context):
        return armature_of(context) is not None

    def invoke(self, context, event):
        source = armature_of(context).get(provenance.SOURCE, "")
        if source:
            stem, ext = os.path.splitext(source)
            self.filepath = f"{stem}_edited{ext}"
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        armature = armature_of(context)
        try:
            path = cli_path(context)
            target = self.target
            if target == "AUTO":
                writable = [f.name for f in cli.formats(path) if f.writes]
                target = export_rig.default_format(armature, writable)
                if not target:
                    raise cli.RigportError(f"'{armature.name}' has no writable source format: choose one under Format")
            result = export_rig.export_rig(context, path, armature, self.filepath, target, self.into_original)
        except cli.RigportError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        report_warnings(self, result.warnings)
        measure, worst, where = export_rig.worst_measure(result.compare)
        level = {"INFO"} if result.compare.get("same") else {"WARNING"}
        self.report(level, f"rigport: wrote {', '.join(os.path.basename(f) for f in result.files)}; worst difference "
                           f"{worst:.3g} m ({measure} {where}), tolerance {result.compare.get('tolerance', 0):.3g} m")
        return {"FINISHED"}


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_rigport.bl_idname, text="Game rig (rigport)")


def menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_rigport.bl_idname, text="Game rig (rigport)")


CLASSES = (RigportPreferences, IMPORT_SCENE_OT_rigport, EXPORT_SCENE_OT_rigport)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
