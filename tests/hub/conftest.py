from hub_server import hub, user  # noqa: F401 - the session's hub and a fresh user
