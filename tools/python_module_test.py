"""The `rigport` Python module (python/rigport_python.cpp) against the CLI it mirrors: every answer
the module gives is the one `rigport` gives for the same file and options, byte for byte for the
files it writes. Run by tests/python.cmake with the interpreter the module was built for:
    python3 tools/python_module_test.py --module-dir DIR --rigport CLI --samples DIR --work DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import unittest

ARGS = None


def cli(*args):
    run = subprocess.run([ARGS.rigport, *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError(f"rigport {' '.join(args)} exited {run.returncode}: {run.stderr}")
    return run.stdout


def sample(*parts):
    return os.path.join(ARGS.samples, *parts)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class Module(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import rigport
        cls.rigport = rigport
        cls.work = ARGS.work
        shutil.rmtree(cls.work, ignore_errors=True)
        os.makedirs(cls.work)

    def out(self, name):
        return os.path.join(self.work, name)

    def test_formats_are_the_cli_table(self):
        names = [f["name"] for f in self.rigport.formats()]
        listed = cli("formats")
        for name in names:
            self.assertIn(name, listed)
        self.assertIn("renderware-dff", names)
        dff = next(f for f in self.rigport.formats() if f["name"] == "renderware-dff")
        self.assertTrue(dff["read"] and dff["write"])
        self.assertEqual(dff["extensions"], ".dff")

    def test_items_of_a_package_are_infos(self):
        package = sample("sims3", "synthetic_clip_and_rig.package")
        expected = json.loads(cli("info", "--json", package))[0]["items"]
        self.assertGreater(len(expected), 1)
        self.assertEqual(self.rigport.items(package), expected)

    def test_read_summarises_a_rig_as_info_does(self):
        dff = sample("renderware", "synthetic_skin_rw33002.dff")
        asset = self.rigport.read(dff)
        info = json.loads(cli("info", "--json", dff))[0]
        self.assertEqual(asset["format"], "renderware-dff")
        self.assertEqual(len(asset["rigs"]), 1)
        rig = asset["rigs"][0]
        for key in ("name", "bones", "joints", "meshes", "vertices", "maxInfluences"):
            self.assertEqual(rig[key], info["rigs"][0][key], key)

    def test_read_lists_a_clip_files_clips(self):
        ifp = sample("renderware", "synthetic_anims_anp3.ifp")
        asset = self.rigport.read(ifp)
        info = json.loads(cli("info", "--json", ifp))[0]
        self.assertEqual(asset["rigs"], [])
        self.assertEqual([c["name"] for s in asset["clip_sets"] for c in s["animations"]],
                         [c["name"] for s in info["clipSets"] for c in s["animations"]])

    def test_convert_writes_the_clis_glb(self):
        dff = sample("renderware", "synthetic_skin_rw33002.dff")
        result = self.rigport.convert(dff, self.out("py.glb"))
        cli("convert", dff, "-o", self.out("cli.glb"))
        self.assertEqual(result["written"], [self.out("py.glb")])
        self.assertEqual(read_bytes(self.out("py.glb")), read_bytes(self.out("cli.glb")))

    def test_convert_writes_the_clis_gltf_pair(self):
        dff = sample("renderware", "synthetic_skin_rw36003.dff")
        self.rigport.convert(dff, self.out("pair_py.gltf"))
        cli("convert", dff, "-o", self.out("pair_cli.gltf"))
        self.assertEqual(read_bytes(self.out("pair_py.bin")), read_bytes(self.out("pair_cli.bin")))
        text = read_bytes(self.out("pair_py.gltf")).replace(b"pair_py.bin", b"pair_cli.bin")
        self.assertEqual(text, read_bytes(self.out("pair_cli.gltf")))

    def test_convert_to_a_game_format_writes_the_clis_file(self):
        glb = sample("gltf", "blender34_synthetic_skin_rw36003.glb")
        result = self.rigport.convert(glb, self.out("py.dff"), to="renderware-dff")
        cli("convert", glb, "--to", "renderware-dff", "-o", self.out("cli.dff"))
        self.assertEqual(result["written"], [self.out("py.dff")])
        self.assertEqual(read_bytes(self.out("py.dff")), read_bytes(self.out("cli.dff")))

    def test_a_file_that_is_not_what_it_claims_raises_naming_it_and_writes_nothing(self):
        bogus = self.out("bogus.dff")
        with open(bogus, "wb") as f:
            f.write(bytes([0x10, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0x03, 0x18]) + b"\0" * 20)
        with self.assertRaises(self.rigport.Error) as raised:
            self.rigport.convert(bogus, self.out("bogus.glb"))
        e = raised.exception
        self.assertEqual(e.file, bogus)
        self.assertTrue(e.code)
        self.assertIn(bogus, str(e))
        self.assertIsInstance(e.trail, list)
        self.assertFalse(os.path.exists(self.out("bogus.glb")))
        with self.assertRaises(self.rigport.Error):
            self.rigport.read(self.out("missing.dff"))

    def test_an_unknown_target_format_is_a_usage_error(self):
        with self.assertRaises(self.rigport.Error) as raised:
            self.rigport.convert(sample("renderware", "synthetic_skin_rw33002.dff"), self.out("x.bin"), to="nope")
        self.assertEqual(raised.exception.code, "usage")
        self.assertFalse(os.path.exists(self.out("x.bin")))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for name in ("--module-dir", "--rigport", "--samples", "--work"):
        parser.add_argument(name, required=True)
    ARGS, rest = parser.parse_known_args()
    sys.path.insert(0, ARGS.module_dir)
    unittest.main(argv=[sys.argv[0], "-v", *rest])
