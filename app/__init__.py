"""Attention Lab: an interactive, number-by-number visualiser of scaled dot-product attention."""

__version__ = "0.1.0"
