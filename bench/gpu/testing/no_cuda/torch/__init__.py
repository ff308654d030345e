"""Stand-in for a torch that sees no CUDA device (a CPU build, or no GPU visible): only the names
bench/gpu/node_cost.py asks before it gives up. Used by tests/cli/test_node_cost.sh."""
__version__ = "0.0-cgplan-nocuda"


class version:  # noqa: N801 (torch.version is a module)
    cuda = None


class cuda:  # noqa: N801 (torch.cuda is a module)
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0
