"""The Query Server: a Flask app that reads the index and the database."""
