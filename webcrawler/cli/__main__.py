"""`python -m webcrawler.cli`: the `webcrawler` command (tests and subprocesses run it so)."""

from webcrawler.cli.main import main

if __name__ == "__main__":  # a forkserver child re-imports this module as __mp_main__
    main()
