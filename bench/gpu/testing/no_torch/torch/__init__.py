# Stand-in for a machine without torch (tests/cli/test_node_cost.sh puts this directory first on
# PYTHONPATH, so a torch installed on the test machine does not hide the case).
raise ImportError("No module named 'torch' (bench/gpu/testing/no_torch stand-in)")
