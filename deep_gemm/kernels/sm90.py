"""Hopper (sm_90a) native implementations: ctypes calls into libprime_kernels_sm90.so.

See deep_gemm/kernels/__init__.py for the rule: same names and signatures as deep_gemm.reference.
"""
