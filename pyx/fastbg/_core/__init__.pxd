# cython: language_level=3
# The Cython core (compiled to fastbg._core): the engine layer of fastbg, and the twin of
# the pure-Python fastbg.reference, module for module. Each .pxd is the spec of its
# module (what every field holds, what every function promises); the .pyx files hold the
# def wrappers that validate and allocate, then run noexcept nogil kernels.
#
#   core module        mirrors                        serves
#   _types.pxd         (constants, board_t)           every module below
#   dice.pxd           fastbg.spec.dice               the game loops (numpy bitgen_t)
#   board              fastbg.reference.board         fastbg.game.position, the loops
#   features           fastbg.reference.features      the evaluator's classes, features, net inputs
#   movegen            fastbg.reference.movegen       fastbg.game.plays, perft, the loops
#   turn.pxd           fastbg.reference.turn          every game loop: one roll played
#   eval               fastbg.reference.eval          policies random and pubeval
#   bearoffdb          fastbg.reference.bearoffdb     the nn policy's pure bear-offs
#   nn                 fastbg.reference.nn            fastbg.nn (evaluate), policies nn, nn-1ply
#   luck.pxd           fastbg.spec.luck               variance reduction of the rollout loops
#   evaluator          fastbg.reference.evaluator     policies nn, nn-1ply; look-ahead labels; VR's yardstick
#   policies           fastbg.reference.policies      policy names for the loops above
#   rollout            fastbg.reference.rollout       fastbg.rollouts.cubeless (blocks), matches
#   cubeful            fastbg.reference.cubeful       fastbg.rollouts.cubeful
#
# What both engines share (the start, validation messages, outcome classes, pubeval's
# weights, the nets' files and quantisation) the .pyx files import from fastbg.spec, never
# from fastbg.reference (tests/test_layers.py checks it).
#
# cimports point down this table only (turn.pxd, dice.pxd, rank.pxd and luck.pxd are header-only).
