// tinygltf's implementation, built from Debian's libtinygltf-dev header into rigport itself rather
// than linked from libtinygltf.so, for the reason fmt.cpp gives. rigport never decodes or writes
// an image (gltf_load.cpp keeps images undecoded), so stb_image is left out: TINYGLTF_NO_STB_IMAGE
// and _WRITE are defined for every user of the header (CMakeLists.txt), since they change the
// default members of tinygltf::TinyGLTF.
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
