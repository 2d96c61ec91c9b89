# -*- Python -*-
# GoogleTest unit tests: every TEST() of the CodaUnitTests binary is one lit test.
import os

import lit.formats

config.name = "CODA-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.coda_obj_root, "test", "unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
