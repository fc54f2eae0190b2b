"""Searching: a unit's documents in windows, the one choice of matcher, and the sinks its hits go to."""
