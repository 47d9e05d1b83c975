"""The ``clients`` commands (click) and the launcher's command: infer, check, serve; the server flags."""
