# What Blender's glTF importer does not keep of rigport's output: the asset's extras (source format,
# file, warnings), each animation's length (extras.duration: a clip with one key is longer than its
# keys) and its key times (the clip's frame rate). Only the files rigport just wrote are read here.
import json
import os
import struct

GLB_MAGIC = 0x46546C67  # "glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942


class GltfFile:
    def __init__(self, path):
        self.path = path
        self.bin = b""
        with open(path, "rb") as f:
            data = f.read()
        if len(data) >= 12 and struct.unpack_from("<I", data, 0)[0] == GLB_MAGIC:
            self.json, self.bin = _split_glb(data, path)
        else:
            self.json = json.loads(data.decode("utf-8"))
            buffers = self.json.get("buffers", [])
            if buffers and "uri" in buffers[0]:
                with open(os.path.join(os.path.dirname(path), buffers[0]["uri"]), "rb") as f:
                    self.bin = f.read()

    @property
    def asset_extras(self):
        return self.json.get("asset", {}).get("extras", {})

    def animations(self):
        """[(name, seconds, key times)] per glTF animation, in file order (the importer's order)."""
        out = []
        for anim in self.json.get("animations", []):
            times = []
            for sampler in anim.get("samplers", []):
                times += self._floats(sampler["input"])
            duration = anim.get("extras", {}).get("duration")
            if duration is None:
                duration = max(times, default=0.0)
            out.append((anim.get("name", ""), float(duration), times))
        return out

    def animation_extras(self):
        """{animation name: its extras} (events, scalar channels, a format's own fields)."""
        return {a.get("name", ""): a.get("extras", {}) for a in self.json.get("animations", [])}

    def _floats(self, accessor_index):
        accessor = self.json["accessors"][accessor_index]
        view = self.json["bufferViews"][accessor["bufferView"]]
        start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        count = accessor["count"]
        if accessor.get("componentType") != 5126 or start + 4 * count > len(self.bin):
            return []
        return list(struct.unpack_from(f"<{count}f", self.bin, start))


def _split_glb(data, path):
    json_chunk, bin_chunk, offset = None, b"", 12
    while offset + 8 <= len(data):
        length, kind = struct.unpack_from("<II", data, offset)
        body = data[offset + 8:offset + 8 + length]
        if kind == CHUNK_JSON and json_chunk is None:
            json_chunk = json.loads(body.decode("utf-8"))
        elif kind == CHUNK_BIN and not bin_chunk:
            bin_chunk = body
        offset += 8 + length
    if json_chunk is None:
        raise ValueError(f"{path}: a GLB without a JSON chunk")
    return json_chunk, bin_chunk


# Frame rates game clips are keyed at, most common first (a 15 fps clip is on 30's frames too); a clip
# keyed on none of them keeps the scene's rate.
FRAME_RATES = (30, 24, 25, 60, 50, 120)


def frame_rate(key_times):
    """The first of FRAME_RATES whose frames hold every key time (within 1/100 frame), or None."""
    if not key_times:
        return None
    for fps in FRAME_RATES:
        if all(abs(t * fps - round(t * fps)) < 0.01 for t in key_times):
            return fps
    return None
