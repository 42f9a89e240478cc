// platform::runProgram: the words given are the words the program gets, on POSIX (posix_spawnp,
// an argv array) and on Windows, where one command line is made from them and split again by the
// program (CommandLineToArgvW, the C runtime): spaces, quotes and backslashes must survive it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "platform/process.hpp"
#include "support/stub_program.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using rigport::test::installStubProgram;
using rigport::test::stubArguments;

TEST(RunProgram, EachArgumentArrivesAsOneWordWithItsSpacesQuotesAndBackslashes) {
  const std::string dir = rigport::test::scratchDir("run_program_words");
  const std::string stub = installStubProgram(dir, "stub");
  const std::vector<std::string> words = {
      "plain",
      "two words",
      "a \"quoted\" word",
      "\"",
      "",
      "tab\there",
      R"(C:\folder with space\file.glb)",
      R"(ends in a backslash\)",
      R"(ends in two\\)",
      R"(backslash before a quote\"inside)",
      R"(\\server\share\x)",
      "caf\xc3\xa9 \xe2\x9c\x93",  // UTF-8: café ✓
  };
  std::vector<std::string> args = {stub};
  args.insert(args.end(), words.begin(), words.end());
  const std::optional<int> status = rigport::platform::runProgram(args);
  ASSERT_TRUE(status.has_value()) << stub << " did not start";
  EXPECT_EQ(*status, 3);
  EXPECT_EQ(stubArguments(stub), words);
}

TEST(RunProgram, AProgramInAFolderWithASpaceStarts) {
  const std::string dir = rigport::test::scratchDir("run_program_space") + "/a folder";
  fs::create_directories(dir);
  const std::string stub = installStubProgram(dir, "stub");
  const std::optional<int> status = rigport::platform::runProgram({stub, "x"});
  ASSERT_TRUE(status.has_value()) << stub << " did not start";
  EXPECT_EQ(*status, 3);
  EXPECT_EQ(stubArguments(stub), std::vector<std::string>{"x"});
}

TEST(RunProgram, AProgramThatIsNotThereIsNothing) {
  EXPECT_FALSE(rigport::platform::runProgram({"rigport-no-such-program-anywhere", "x"}).has_value());
}
