"""Lab computations, pure numpy (no web library, no pydantic): the seeded experiments of
the why-scale lab and their "Copy as NumPy" scripts; positional encoding, masks and cost."""
