"""The error every command reports the same way: a damaged data directory.

`DatabaseDamaged` (database.py) and `IndexDamaged` (index/models.py) derive from
`DataDamaged`, so the command line turns either into one line and exit status 1
wherever it is found, without importing the index (and Whoosh) to catch it.
Nothing here imports anything.
"""


class DataDamaged(Exception):
    """A file of the data directory cannot be used as it is. The message names the file
    and says what to do; it is for the user: no library's raw message."""
