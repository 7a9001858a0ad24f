"""The web plumbing the query server and the workbench share: both import it, it imports
neither.

    errors     error pages (HTML, or JSON under /api/) and security headers on every answer
    guard      the Host names answered, and same-origin JSON for whatever changes state
    payload    strict request values: a JSON object of known types, or a clear BadQuery
    jobs       background jobs: a child process group each, its JSON lines collected, bounded
    processes  a job's process tree: started in its own session, ended as a whole
    server     waitress, the production WSGI server: in the foreground or a background thread
    openapi    the pieces both OpenAPI descriptions are written with
"""
