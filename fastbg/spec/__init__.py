"""The engine spec: what both engines read, and neither engine is.

fastbg has two engines that must agree bit for bit: the pure-Python reference
(:mod:`fastbg.reference`) and the compiled core (``fastbg._core``). So that their agreement
means something, neither imports the other (DESIGN section 6); what they share lives here:

- :mod:`fastbg.spec.board`: the start, board validation (with its messages), the outcome
  and cubeful result classes, the cube's column count, the bear-off databases' counts check;
- :mod:`fastbg.spec.dice`: the dice contract, draw for draw (DESIGN section 4);
- :mod:`fastbg.spec.luck`: the arithmetic of variance reduction by luck adjustment;
- :mod:`fastbg.spec.pubeval`: Tesauro's pubeval weights, as exact integers;
- :mod:`fastbg.spec.policies`: the checker-play policies by name;
- :mod:`fastbg.spec.features`: the evaluator's input layout (feature names, denominators,
  widths, position classes);
- :mod:`fastbg.spec.nn` and :mod:`fastbg.spec.nets`: the networks' files (checked against
  their SHA-256), the sigmoid tables, the networks' shapes and their quantisation into
  integers, and the checks of a decision's arguments.

The spec imports nothing of fastbg (``pyproject.toml``'s import contracts keep it so);
everything above the engines that needs these (positions, formats, rollouts) reads them
here, and the engines' functions through :func:`fastbg.engine.get_engine`.
"""
