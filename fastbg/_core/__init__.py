"""Compiled Cython core of fastbg (built from pyx/fastbg/_core)."""
