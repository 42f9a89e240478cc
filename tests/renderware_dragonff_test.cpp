// DFFs rigport writes, read by the rule DragonFF's importer applies and by librw's (issue 27 §3,
// docs/dragonff.md). Each input is the demo character exported by rigport and edited the way other
// tools write glTF; the DFF `convert --to renderware-dff` writes from it is read back here three
// ways and each must pose the input's rest joints and skinned vertices:
//   - DragonFF (ops/dff_importer.py, class dff_importer; evaluated by `dragonffRest` below),
//   - librw's skinning (src/skin.cpp: a vertex lands at Σ w · node frame LTM × inverse matrix × v,
//     the atomic's frame cancels; `librwRest` below),
//   - rigport's own reader (`rigport compare` of the input against the DFF).
// The inputs, each reproducing a case measured with DragonFF in Blender 3.4:
//   Plain           the export itself
//   ScaledArmature  a scaled and turned node above the skeleton (Blender's armature object, the
//                   Khronos Fox: ×0.0254 and 90°): joint world × IBM = that node's transform
//   TwoRoots        a second root joint (the left leg chain hung from the scene)
//   HelperNode      a node that is no joint between the pelvis and the left thigh (assimp's helper
//                   nodes): DragonFF parents a bone only to a bone's frame (tests/renderware_helper_test.cpp
//                   poses such a rig's clip by librw's rule)
//   ReversedJoints  the skin's joint list reversed
//   BindShape       a ×100 scale and an offset folded into every inverse bind matrix (assimp's FBX
//                   conversions, gltfpack's dequantisation)
//   MeshOffset      a translation alone folded into the IBMs (a Blender mesh object offset from its
//                   armature)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "core/axes.hpp"
#include "demo/character.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/dff_stream.hpp"
#include "formats/renderware/frame_list.hpp"
#include "formats/renderware/geometry.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_pose.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::renderware;

namespace {

// ---- the inputs --------------------------------------------------------------------------------

// A node "Armature" with `local` as its matrix above the scene's skeleton roots; the skinned mesh
// node stays a root (glTF ignores its transform) and the IBMs are left as they were, so every
// joint world × IBM = `local`, as Blender writes a transformed armature object.
void transformArmature(tinygltf::Model& m, const glm::mat4& local) {
  tinygltf::Scene& scene = m.scenes.at(static_cast<size_t>(std::max(m.defaultScene, 0)));
  tinygltf::Node armature;
  armature.name = "Armature";
  std::vector<int> roots;
  for (int n : scene.nodes) (m.nodes.at(static_cast<size_t>(n)).skin >= 0 ? roots : armature.children).push_back(n);
  const glm::vec3 t(local[3]);
  const glm::vec3 s(glm::length(glm::vec3(local[0])), glm::length(glm::vec3(local[1])), glm::length(glm::vec3(local[2])));
  const glm::quat r = glm::quat_cast(glm::mat3(glm::vec3(local[0]) / s.x, glm::vec3(local[1]) / s.y, glm::vec3(local[2]) / s.z));
  armature.translation = {t.x, t.y, t.z};
  armature.rotation = {r.x, r.y, r.z, r.w};
  armature.scale = {s.x, s.y, s.z};
  roots.push_back(static_cast<int>(m.nodes.size()));
  m.nodes.push_back(armature);
  scene.nodes = roots;
}

// Node `name` taken from its parent and made a scene root at the same world place.
void makeRoot(tinygltf::Model& m, const std::string& name) {
  const std::vector<glm::mat4> world = test::nodeWorlds(m);
  const auto it = std::find_if(m.nodes.begin(), m.nodes.end(), [&](const tinygltf::Node& n) { return n.name == name; });
  ASSERT_NE(it, m.nodes.end()) << name;
  const int node = static_cast<int>(it - m.nodes.begin());
  for (tinygltf::Node& n : m.nodes) n.children.erase(std::remove(n.children.begin(), n.children.end(), node), n.children.end());
  const glm::mat4& w = world[static_cast<size_t>(node)];
  const glm::quat r = glm::quat_cast(glm::mat3(w));
  it->translation = {w[3].x, w[3].y, w[3].z};
  it->rotation = {r.x, r.y, r.z, r.w};
  m.scenes.at(static_cast<size_t>(std::max(m.defaultScene, 0))).nodes.push_back(node);
}

// A node "thigh_l_offset" that is no joint put between `name` and its parent, holding `name`'s
// translation (assimp's $AssimpFbx$ helper nodes, an FBX pivot): `name` keeps its world place.
void insertHelper(tinygltf::Model& m, const std::string& name) {
  const auto it = std::find_if(m.nodes.begin(), m.nodes.end(), [&](const tinygltf::Node& n) { return n.name == name; });
  ASSERT_NE(it, m.nodes.end()) << name;
  const int node = static_cast<int>(it - m.nodes.begin());
  tinygltf::Node helper;
  helper.name = name + "_offset";
  helper.translation = it->translation;
  helper.children = {node};
  it->translation = {0.0, 0.0, 0.0};
  const int added = static_cast<int>(m.nodes.size());
  for (tinygltf::Node& n : m.nodes) std::replace(n.children.begin(), n.children.end(), node, added);
  m.nodes.push_back(helper);
}

std::string makeInput(const std::string& name, const std::string& path) {
  Rig rig = makeDemoCharacter();
  toGltfAxes(rig);
  rig.animations.clear();  // DragonFF imports no clip; the rest pose is what is compared
  tinygltf::Model m = test::exported(rig);
  if (name == "ScaledArmature") {
    transformArmature(m, glm::rotate(glm::mat4(1.0f), glm::radians(90.0f), glm::vec3(1, 0, 0)) * glm::scale(glm::mat4(1.0f), glm::vec3(0.0254f)));
  } else if (name == "TwoRoots") {
    makeRoot(m, "thigh_l");
  } else if (name == "HelperNode") {
    insertHelper(m, "thigh_l");
  } else if (name == "ReversedJoints") {
    test::reverseJoints(m);
  } else if (name == "BindShape") {
    test::foldBindShape(m, glm::translate(glm::mat4(1.0f), glm::vec3(0.25f, -0.5f, 1.0f)) * glm::scale(glm::mat4(1.0f), glm::vec3(100.0f)));
  } else if (name == "MeshOffset") {
    test::foldBindShape(m, glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, 0.0f, 1.5f)));
  }
  return test::save(m, path);
}

// ---- the DFF as written ------------------------------------------------------------------------

struct Clump {
  std::vector<uint8_t> bytes;  // a skin's node indices and weights stay views into them
  std::vector<RwFrame> frames;
  std::vector<RwGeometry> geometries;
  std::vector<RwAtomic> atomics;
};

uint32_t u32(ByteReader& r, const char* field) {
  auto v = r.u32(field);
  EXPECT_TRUE(v.ok()) << field;
  return v ? *v : 0u;
}

// The clump's frames, geometries and atomics as stored (no reordering, no rig built).
Clump readClump(std::vector<uint8_t> bytes) {
  Clump c;
  c.bytes = std::move(bytes);
  ByteReader file(c.bytes);
  auto clump = readChunk(file, kClump, "Clump");
  EXPECT_TRUE(clump.ok());
  if (!clump) return c;
  DffContext ctx;
  ctx.version = 0x36003;
  auto st = readChunk(*clump, kStruct, "Struct");
  const uint32_t atomics = st ? u32(*st, "numAtomics") : 0;
  auto fl = readChunk(*clump, kFrameList, "FrameList");
  auto frames = fl ? readFrameList(*fl, ctx) : Result<std::vector<RwFrame>>(fl.error());
  EXPECT_TRUE(frames.ok());
  if (frames) c.frames = *frames;
  auto gl = readChunk(*clump, kGeometryList, "GeometryList");
  EXPECT_TRUE(gl.ok());
  if (!gl) return c;
  auto gst = readChunk(*gl, kStruct, "Struct");
  const uint32_t count = gst ? u32(*gst, "numGeometries") : 0;
  for (uint32_t i = 0; i < count; ++i) {
    auto g = readChunk(*gl, kGeometry, "Geometry");
    auto geo = g ? readGeometry(*g, ctx) : Result<RwGeometry>(g.error());
    EXPECT_TRUE(geo.ok());
    if (geo) c.geometries.push_back(*geo);
  }
  for (uint32_t i = 0; i < atomics; ++i) {
    auto a = readChunk(*clump, kAtomic, "Atomic");
    auto ast = a ? readChunk(*a, kStruct, "Struct") : Result<ByteReader>(a.error());
    EXPECT_TRUE(ast.ok());
    if (!ast) break;
    RwAtomic atomic;
    atomic.frameIndex = u32(*ast, "frameIndex");
    atomic.geometryIndex = u32(*ast, "geometryIndex");
    c.atomics.push_back(atomic);
  }
  return c;
}

// A pose as a tool shows it: joint origins by frame name and every skinned vertex, atomic by atomic.
struct Pose {
  std::map<std::string, glm::vec3> joints;
  std::map<std::string, std::string> parents;  // a joint's parent joint, "" for none
  std::vector<glm::vec3> vertices;
};

// World matrix of frame f: the frames' own matrices, parents first (RwFrame::getLTM).
glm::mat4 frameLtm(const std::vector<RwFrame>& frames, int32_t f) {
  glm::mat4 m(1.0f);
  for (; f >= 0; f = frames[static_cast<size_t>(f)].parent) m = frames[static_cast<size_t>(f)].matrix * m;
  return m;
}

// The first frame whose HAnim PLG carries the node list (DragonFF: `bone_count > 0`; librw:
// HAnimData::hierarchy).
int32_t hierarchyFrame(const Clump& c) {
  for (size_t f = 0; f < c.frames.size(); ++f)
    if (c.frames[f].hanim && !c.frames[f].hanim->nodes.empty()) return static_cast<int32_t>(f);
  return -1;
}

// DragonFF, ops/dff_importer.py (class dff_importer):
//  - construct_bone_dict: a bone's frame is the (last) frame whose HAnim id is the node's id;
//  - get_skinned_obj_index: the skin is that of the atomic on the hierarchy frame's parent, else on
//    the frame before it, else on frame 0, else the first skinned atomic's;
//  - construct_armature: with a skin, a bone's rest matrix is inverse(skin.bone_matrices[node.index])
//    in armature space; frame matrices of bones are not used;
//  - import_frames: the armature object (the hierarchy frame) keeps an identity local matrix and hangs
//    on its parent frame's object, whose world is the parent frames' chain (obj.matrix_local); an
//    atomic on the hierarchy frame is parented to the armature with its positions as stored.
Pose dragonffRest(const Clump& c) {
  Pose pose;
  const int32_t h = hierarchyFrame(c);
  if (h < 0) return pose;
  const RwFrame& hier = c.frames[static_cast<size_t>(h)];
  std::map<int32_t, size_t> skinOnFrame;  // the first skinned atomic's geometry per frame
  const SkinPlg* firstSkin = nullptr;      // "an arbitrary frame": the dict's first, in atomic order
  for (const RwAtomic& a : c.atomics) {
    const RwGeometry& g = c.geometries.at(a.geometryIndex);
    if (!g.skin) continue;
    skinOnFrame.emplace(static_cast<int32_t>(a.frameIndex), a.geometryIndex);
    if (firstSkin == nullptr) firstSkin = &*g.skin;
  }
  const SkinPlg* skin = nullptr;
  for (int32_t f : {hier.parent, h - 1, 0}) {
    if (skinOnFrame.count(f) != 0) {
      skin = &*c.geometries[skinOnFrame[f]].skin;
      break;
    }
  }
  if (skin == nullptr) skin = firstSkin;
  const glm::mat4 armature = frameLtm(c.frames, hier.parent);
  std::map<int32_t, std::string> boneName;
  for (const RwFrame& f : c.frames)
    if (f.hanim) boneName[f.hanim->nodeId] = f.name.value_or("");
  // construct_armature: a bone gets its frame's parent as parent bone only when that frame is at or
  // after the hierarchy frame and already made a bone (earlier in the node list).
  std::map<int32_t, std::string> made;  // frame index -> bone name
  for (const HAnimNode& node : hier.hanim->nodes) {
    for (size_t f = 0; f < c.frames.size(); ++f) {
      if (!c.frames[f].hanim || c.frames[f].hanim->nodeId != node.id) continue;  // the last frame wins
      const int32_t parent = c.frames[f].parent;
      pose.parents[boneName[node.id]] = parent >= h && made.count(parent) != 0 ? made[parent] : "";
      made[static_cast<int32_t>(f)] = boneName[node.id];
    }
  }
  for (const HAnimNode& node : hier.hanim->nodes) {
    if (skin == nullptr || static_cast<size_t>(node.index) >= skin->inverseMatrices.size()) continue;
    pose.joints[boneName[node.id]] = glm::vec3((armature * glm::inverse(skin->inverseMatrices[static_cast<size_t>(node.index)]))[3]);
  }
  for (const RwAtomic& a : c.atomics) {
    const RwGeometry& g = c.geometries[a.geometryIndex];
    if (!g.skin) continue;
    const glm::mat4 world = static_cast<int32_t>(a.frameIndex) == h ? armature : frameLtm(c.frames, static_cast<int32_t>(a.frameIndex));
    for (const glm::vec3& p : g.positions) pose.vertices.emplace_back(world * glm::vec4(p, 1.0f));
  }
  return pose;
}

// librw, src/skin.cpp (skinning) and src/hanim.cpp (HAnimHierarchy::attach): node i is the frame
// with its id; a vertex lands at Σ w · LTM(node frame) × inverseMatrix × v whatever frame its
// atomic hangs on; a joint's rest origin is its frame's LTM.
Pose librwRest(const Clump& c) {
  Pose pose;
  const int32_t h = hierarchyFrame(c);
  if (h < 0) return pose;
  std::vector<glm::mat4> nodeLtm;
  for (const HAnimNode& node : c.frames[static_cast<size_t>(h)].hanim->nodes) {
    glm::mat4 ltm(1.0f);
    for (size_t f = 0; f < c.frames.size(); ++f) {
      if (c.frames[f].hanim && c.frames[f].hanim->nodeId == node.id) {
        ltm = frameLtm(c.frames, static_cast<int32_t>(f));
        pose.joints[c.frames[f].name.value_or("")] = glm::vec3(ltm[3]);
        break;
      }
    }
    nodeLtm.push_back(ltm);
  }
  for (const RwAtomic& a : c.atomics) {
    const RwGeometry& g = c.geometries[a.geometryIndex];
    if (!g.skin) continue;
    const SkinPlg& skin = *g.skin;
    for (size_t v = 0; v < g.positions.size(); ++v) {
      glm::mat4 m(0.0f);
      for (size_t k = 0; k < 4; ++k) {
        const size_t n = skin.nodeBytes()[4 * v + k];
        float w = 0.0f;
        std::memcpy(&w, skin.weightBytes() + 4 * (4 * v + k), sizeof w);
        if (w > 0.0f) m += w * (nodeLtm.at(n) * skin.inverseMatrices.at(n));
      }
      pose.vertices.emplace_back(m * glm::vec4(g.positions[v], 1.0f));
    }
  }
  return pose;
}

// The input as a glTF client poses it, in RenderWare's axes (Z up; glTF (x, y, z) is RW (−x, z, y)).
Pose gltfRest(const std::string& path) {
  const tinygltf::Model model = test::loadGlbModel(path);
  test::GltfPose gp(model);
  gp.pose();
  const auto toRw = [](const glm::vec3& p) { return glm::vec3(-p.x, p.z, p.y); };
  Pose pose;
  const std::vector<int>& joints = model.skins.at(0).joints;
  for (int j : joints) {
    pose.joints[model.nodes[static_cast<size_t>(j)].name] = toRw(gp.position(j));
    int p = gp.parent(j);
    while (p >= 0 && std::find(joints.begin(), joints.end(), p) == joints.end()) p = gp.parent(p);
    pose.parents[model.nodes[static_cast<size_t>(j)].name] = p >= 0 ? model.nodes[static_cast<size_t>(p)].name : "";
  }
  for (const glm::vec3& v : gp.vertices()) pose.vertices.push_back(toRw(v));
  return pose;
}

struct Distance {
  float joint = 0.0f, vertex = 0.0f;
  std::string where;
};

// Farthest joint (by name) and vertex (by index) of `got` from `want`; a joint or vertex count
// that differs is a failure.
Distance distance(const Pose& want, const Pose& got, const std::string& label) {
  Distance d;
  EXPECT_EQ(want.joints.size(), got.joints.size()) << label;
  for (const auto& [name, p] : want.joints) {
    const auto it = got.joints.find(name);
    if (it == got.joints.end()) {
      ADD_FAILURE() << label << ": no joint '" << name << "'";
      continue;
    }
    const float e = glm::length(it->second - p);
    if (e > d.joint) d.joint = e, d.where = name;
  }
  EXPECT_EQ(want.vertices.size(), got.vertices.size()) << label;
  for (size_t v = 0; v < std::min(want.vertices.size(), got.vertices.size()); ++v)
    d.vertex = std::max(d.vertex, glm::length(got.vertices[v] - want.vertices[v]));
  return d;
}

float modelSize(const Pose& p) {
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const glm::vec3& v : p.vertices) lo = glm::min(lo, v), hi = glm::max(hi, v);
  return glm::length(hi - lo);
}

class DragonffReads : public testing::TestWithParam<const char*> {};

TEST_P(DragonffReads, TheRestPoseTheInputShows) {
  const std::string name = GetParam();
  const std::string dir = test::scratchDir(std::string("renderware_dragonff_") + name);
  const std::string input = makeInput(name, dir + "/in.glb");
  const std::string dff = dir + "/m.dff";
  const test::CliRun converted = test::runCli("convert " + test::quote(input) + " --to renderware-dff -o " + test::quote(dff) + " --overwrite");
  ASSERT_EQ(converted.code, 0) << converted.text;

  const Pose want = gltfRest(input);
  const Clump clump = readClump(test::readBytes(dff));
  const float tolerance = 1e-4f * modelSize(want);
  const Distance dragonff = distance(want, dragonffRest(clump), name + " (DragonFF)");
  const Distance librw = distance(want, librwRest(clump), name + " (librw)");
  std::printf("[ measured ] %s, %.3g m model: DragonFF joints %.3g m ('%s'), vertices %.3g m; librw joints %.3g m, vertices %.3g m\n",
              name.c_str(), modelSize(want), dragonff.joint, dragonff.where.c_str(), dragonff.vertex, librw.joint, librw.vertex);
  EXPECT_LE(dragonff.joint, tolerance) << "DragonFF's bone '" << dragonff.where << "'";
  EXPECT_LE(dragonff.vertex, tolerance) << "DragonFF's vertices";
  EXPECT_LE(librw.joint, tolerance) << "librw's frames";
  // DragonFF's parents are the input's nearest joint ancestors, also across a node that is no joint
  // (HelperNode): the writer hangs the joint below it on the joint above (core/fit_keys.hpp
  // foldHelperBones), since DragonFF parents a bone only to a bone's frame.
  EXPECT_EQ(dragonffRest(clump).parents, want.parents) << "DragonFF's bone parents";
  EXPECT_LE(librw.vertex, tolerance) << "librw's skinning";

  const test::CliRun compared = test::runCli("compare " + test::quote(input) + " " + test::quote(dff));
  EXPECT_EQ(compared.code, 0) << compared.text;
}

INSTANTIATE_TEST_SUITE_P(Inputs, DragonffReads,
                         testing::Values("Plain", "ScaledArmature", "TwoRoots", "HelperNode", "ReversedJoints", "BindShape", "MeshOffset"));

// DragonFF's construct_bone_dict takes the last frame carrying a node's HAnim id as that node's
// bone: a frame that is no node (a prop bone) with a joint's id would take the joint's place and
// name. The writer gives such a frame no id.
TEST(DragonffReads, AFrameThatIsNoNodeNeverCarriesANodesId) {
  Rig rig = makeDemoCharacter();
  const int32_t pelvis = rig.skeleton.find("pelvis");
  ASSERT_GE(pelvis, 0);
  rig.skeleton.joints = rig.skeleton.jointList();
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) rig.skeleton.bones[b].id = static_cast<uint32_t>(100 + b);
  Bone prop;
  prop.name = "prop";
  prop.parent = rig.skeleton.find("hand_r");
  prop.id = rig.skeleton.bones[static_cast<size_t>(pelvis)].id;  // not a joint: not in `joints`
  rig.skeleton.bones.push_back(prop);
  auto written = writeDff(rig);
  ASSERT_TRUE(written.ok()) << written.error().describe();
  const Clump clump = readClump(*written);
  const int32_t id = static_cast<int32_t>(*rig.skeleton.bones[static_cast<size_t>(pelvis)].id);
  size_t carrying = 0;
  for (const RwFrame& f : clump.frames) carrying += f.hanim && f.hanim->nodeId == id ? 1 : 0;
  EXPECT_EQ(carrying, 1u);
  const Pose pose = dragonffRest(clump);
  EXPECT_EQ(pose.joints.count("pelvis"), 1u);
  EXPECT_EQ(pose.joints.count("prop"), 0u);
}

}  // namespace
