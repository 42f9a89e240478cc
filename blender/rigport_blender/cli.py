# The rigport command line, run as a subprocess: the add-on needs no compiled module, so it works in
# any Blender whose Python differs from the system's (issue 28).
import json
import os
import shutil
import subprocess


class RigportError(Exception):
    """A rigport run that failed, or a choice the files cannot satisfy; the message is for the user."""


def find_cli(configured_path=""):
    """The rigport program: the path set in the add-on's preferences, else `rigport` on PATH."""
    if configured_path:
        path = os.path.abspath(bpy_path(configured_path))
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
        raise RigportError(f"the rigport CLI set in the add-on's preferences is not an executable file: {path}")
    found = shutil.which("rigport")
    if not found:
        raise RigportError("rigport is not on PATH: set its path in Edit > Preferences > Add-ons > rigport")
    return found


def bpy_path(path):
    """Blender's '//' (relative to the .blend) resolved where bpy is present; the path unchanged elsewhere."""
    try:
        import bpy
    except ImportError:
        return path
    return bpy.path.abspath(path)


def run(cli, args, expect_json=True):
    """Runs `rigport ARGS`; returns (exit code, parsed stdout or text, stderr)."""
    try:
        done = subprocess.run([cli, *args], capture_output=True, text=True, encoding="utf-8", errors="replace")
    except OSError as error:
        raise RigportError(f"could not run {cli}: {error}") from error
    if not expect_json:
        return done.returncode, done.stdout, done.stderr
    try:
        out = json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    if out is None and done.returncode != 0:
        raise RigportError(f"rigport {args[0]} failed (exit {done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    if out is None:
        raise RigportError(f"rigport {args[0]} printed no JSON: {done.stdout[:200]!r}")
    return done.returncode, out, done.stderr


# Formats that store a model without its clips, and the extension of their clip files. The add-on's
# export writes a model's clips into a folder of their own beside it (`clips_folder`), and its import
# of that model alone takes them from there.
CLIP_FILES_OF = {"renderware-dff": ".anm", "battleforge-drs": ".ska"}


def clips_folder(model_path):
    return os.path.splitext(os.path.abspath(model_path))[0] + "_clips"


class Format:
    """One row of `rigport formats`."""

    def __init__(self, name, extensions, writes, animation_only):
        self.name = name
        self.extensions = extensions
        self.writes = writes
        self.animation_only = animation_only


def formats(cli):
    """`rigport formats`'s table (it has no --json): name, extensions, read, write, animation-only, carries."""
    code, text, err = run(cli, ["formats"], expect_json=False)
    if code != 0:
        raise RigportError(f"rigport formats failed: {err.strip()}")
    rows = []
    for line in text.splitlines()[1:]:
        cells = line.split()
        if len(cells) >= 5:
            rows.append(Format(cells[0], cells[1].split(","), cells[3] == "yes", cells[4] == "yes"))
    return rows


def info(cli, paths):
    """`rigport info --json` of several files: one object per file (items, rigs, clipSets, or error)."""
    _, out, _ = run(cli, ["info", "--json", *paths])
    return out


def warning_lines(warnings):
    """rigport's warnings ({code, message, count}) as one line each."""
    lines = []
    for w in warnings:
        count = w.get("count", 1)
        lines.append(f"{w.get('code', 'warning')}: {w.get('message', '')}" + (f" (x{count})" if count > 1 else ""))
    return lines


def convert(cli, args):
    """`rigport convert ARGS --json`: (files written, warning lines); a failed input raises with rigport's error."""
    _, out, stderr = run(cli, ["convert", *args, "--json"])
    written, warnings, errors = [], [], []
    for entry in out.get("files", []):
        written += entry.get("written", [])
        warnings += warning_lines(entry.get("warnings", []))
        for dropped in entry.get("coverage", {}).get("dropped", []):
            examples = ", ".join(str(e) for e in dropped.get("examples", []))
            warnings.append(f"{dropped.get('count', 0)} clip tracks not bound ({dropped.get('reason', '')}): {examples}")
        if entry.get("error"):
            errors.append(entry["error"].get("text") or entry["error"].get("message", "failed"))
    if errors:
        raise RigportError("; ".join(errors))
    if not written:
        raise RigportError(f"rigport convert wrote nothing: {stderr.strip()}")
    return written, warnings
