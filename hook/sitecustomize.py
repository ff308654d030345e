"""Loads cgplan's capture hook into every Python process started with this directory on
PYTHONPATH and CGPLAN_HOOK=1 (SGLang spawns its scheduler processes: they inherit the
environment, not the parent's patches). Without CGPLAN_HOOK=1 it does nothing, so leaving the
directory on the path is harmless. A sitecustomize that this one shadows is still run."""

import importlib.util
import os
import sys

if os.environ.get("CGPLAN_HOOK") == "1":
    import cgplan_capture_hook

    cgplan_capture_hook.install()

# chain to the next sitecustomize on the path, if any: this file must not hide a site's own
_here = os.path.dirname(os.path.abspath(__file__))
for _dir in sys.path:
    if not _dir or os.path.abspath(_dir) == _here:
        continue
    _path = os.path.join(_dir, "sitecustomize.py")
    if os.path.isfile(_path):
        _spec = importlib.util.spec_from_file_location("_cgplan_next_sitecustomize", _path)
        _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
        break
