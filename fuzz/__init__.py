"""Coverage-guided fuzzing of the matcher and the readers with atheris (see targets.py)."""
