# SPDX-License-Identifier: MIT
"""Print the directory under PREFIX where this Python looks for packages
(Debian's python3: PREFIX/lib/python3.X/dist-packages), or nothing; meson
installs the slog package there (meson's own pick, python3/dist-packages,
is not on Debian's sys.path)."""
import os
import sys

lib = os.path.join(sys.argv[1], "lib") + os.sep
found = [d for d in sys.path if d.startswith(lib) and d.endswith(("dist-packages", "site-packages"))]
print(found[0] if found else "")
