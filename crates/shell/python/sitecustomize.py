"""sandtab's start-up for CPython: the packages `pip` installed, HTTP(S) through
the sandbox's capability gate (`_sandtab_net`, loaded when `socket` is imported,
which most programs never do), and Ctrl-C as `KeyboardInterrupt` when stdin is the
terminal (`_sandtab_terminal`). Kept small: it runs at every start."""

import sys


class _NetOnImport:
    """Loads `_sandtab_net` right after `socket` is first imported."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "socket":
            return None
        sys.meta_path.remove(cls)
        import _sandtab_net

        return _sandtab_net.socket_spec(name, path, target)


def _start():
    import os
    import site

    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    site.addsitedir(f"/opt/sandtab/lib/python{version}/site-packages")
    sys.meta_path.insert(0, _NetOnImport)
    if os.isatty(0):
        import _sandtab_terminal

        _sandtab_terminal.install()


_start()
del _start
