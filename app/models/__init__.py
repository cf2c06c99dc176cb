"""Real models, opened head by head: pure numpy over weights read with ``safetensors`` or
from a GGUF file.

``base`` holds the shared types (``ModelSpec``, ``HeadWeights``, ``Trace``, the ``Model``
protocol); ``registry`` is the one list of models and loads each lazily, once per worker;
``weights`` reads a safetensors file into numpy and refuses one whose sha256 differs;
``wordpiece`` and ``minilm`` are the sentence encoder's tokenizer and forward pass (``erf``:
the exact GELU's erf in numpy); ``gguf_file``, ``quants``, ``bpe``, ``llama``, ``smollm``
and ``generation`` are SmolLM2-135M (its GGUF file read as data, ggml blocks dequantized
on use, byte-level BPE, the Llama layer's maths, the model, generation with a KV cache);
``summaries`` names what each head does; ``head_state`` turns one head into a body for
``POST /api/v1/attention``; ``errors`` says what went wrong and what to do; ``cli`` is
``attention-lab models list|install``. No torch at run time, and nothing from the web
layers.
"""
