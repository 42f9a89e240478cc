// The name a glTF node gets for a name read from a game file (gltf_ecosystem.md §1.4): game files
// store names as fixed-size byte strings, usually ASCII or a Windows code page, and JSON must be
// UTF-8. The exporter names nodes so; the glTF reader tells by it whether a node still bears the
// name it was exported with.
#pragma once

#include <string>

namespace rigport {

// `name` as UTF-8: bytes that are not valid UTF-8 are read as Latin-1.
std::string toUtf8(const std::string& name);
// A node name: UTF-8, control characters replaced by '_', no surrounding spaces.
std::string nodeNameOf(const std::string& name);
// Whether `node` is a name the exporter gives a node for `name`: nodeNameOf(name), or that with
// "_2", "_3"... where another node had it, or its first 63 bytes, all Blender keeps of a bone's name;
// any name where nodeNameOf(name) is empty (a fallback).
bool exportedNameOf(const std::string& node, const std::string& name);

}  // namespace rigport
