"""GPU probe: PTX generation for every variant of a spec, the assembler check, and (with a GPU)
the run. Only this package may touch CUDA, behind the optional [gpu] extra."""
