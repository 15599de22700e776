"""``python -m smallvis``: the ``smallvis`` command, where its script is not on the PATH."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
