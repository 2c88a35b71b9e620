"""``python -m codegold.cli``: the same as the ``codegold`` console script."""

from codegold.cli.main import main

main()
