"""fastbg's version: a leaf module, so that any module can import it without importing the
package (``fastbg/__init__.py`` re-exports it as ``fastbg.__version__``)."""

__version__ = "0.1.0"
