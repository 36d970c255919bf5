"""The multiplayer web server (needs the ``server`` extra: FastAPI, uvicorn)."""
