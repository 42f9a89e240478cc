# scripts/windows_tests.sh: for each failed test of a GoogleTest log, "tool NAME" when every
# failure it reported is the glTF validator (node) or Blender not starting (a Windows program
# under Wine cannot start those Linux programs), else "failed NAME".
/^\[ RUN      \] / { test = $4; blocks = 0; toolBlocks = 0; inBlock = 0; next }
/: Failure$/ || /^unknown file: Failure$/ {
  if (inBlock && marked) toolBlocks++
  blocks++; inBlock = 1; marked = 0; next
}
/validate_gltf\.mjs exit code 9009|blender is not installed/ { if (inBlock) marked = 1; next }
/^\[  FAILED  \] .* \([0-9]+ ms\)$/ {
  if (inBlock && marked) toolBlocks++
  name = $0; sub(/^\[  FAILED  \] /, "", name); sub(/ \([0-9]+ ms\)$/, "", name)
  print ((blocks > 0 && toolBlocks == blocks) ? "tool " : "failed ") name
  inBlock = 0; test = ""; next
}
/^\[       OK \] / { inBlock = 0 }
