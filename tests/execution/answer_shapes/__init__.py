"""The answer-shape corpus (see shapes.py)."""
