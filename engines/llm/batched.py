"""Continuous batching over llama.cpp: several requests decode together on CPU.

One scheduler thread owns the llama.cpp context. Requests wait in a queue
and are admitted into *slots* (llama.cpp sequence ids in one unified KV
cache). Every step builds one batch holding the next token of each
generating slot plus a chunk of prompt tokens from slots still reading
their prompt, so a long prompt never stalls the others for more than one
chunk.

Prompts are reused: a slot keeps its tokens' KV after its request ends, and
a new request starts from the longest prefix any slot holds (copied with
``llama_memory_seq_cp``, which shares the cells; the policy is in :mod:`.slots`). A request whose prefix is
still being read by another slot waits for it rather than reading it twice;
that is what makes one game string into five languages cost one prompt
plus five short tails.

Decoding is token by token but text is made only from whole sequences, so
multibyte characters split across tokens come out intact.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from concurrent.futures import Future

import llama_cpp
import numpy as np
from llama_cpp._internals import LlamaBatch, LlamaContext, LlamaModel

from engines.llm.completion import BatchStats, ContextFull, Generated, cut_at_stops
from engines.llm.sampling import TokenChooser
from engines.llm.slots import QueuedRequest, Slot, place, should_wait

log = logging.getLogger(__name__)


class BatchedLlama:
    """A GGUF model served to many concurrent callers from one llama.cpp context.

    Args:
        model_path: the ``.gguf`` file.
        slots: sequences decoded together (parallel requests).
        n_ctx: KV cells shared by all slots; a request may use ``n_ctx // slots``.
        threads: CPU threads for decoding (one token per sequence per step).
        threads_batch: CPU threads for reading prompts (default: ``threads``).
        n_batch: most tokens in one llama.cpp batch (prompt chunk size).
    """

    def __init__(
        self,
        model_path: str,
        *,
        slots: int = 4,
        n_ctx: int = 8192,
        threads: int = 2,
        threads_batch: int | None = None,
        n_batch: int = 256,
    ) -> None:
        from llama_cpp import _logger

        _logger.set_verbose(False)  # llama.cpp's load and graph chatter: errors only
        self.slots_count = max(1, slots)
        self.n_batch = max(8, n_batch)
        model_params = llama_cpp.llama_model_default_params()
        model_params.n_gpu_layers = 0
        self.model = LlamaModel(path_model=model_path, params=model_params, verbose=False)
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = self.n_batch
        params.n_ubatch = self.n_batch
        params.n_seq_max = self.slots_count
        params.kv_unified = True
        params.n_threads = threads
        params.n_threads_batch = threads_batch or threads
        self.context = LlamaContext(model=self.model, params=params, verbose=False)
        self.n_ctx = self.context.n_ctx()
        self.per_request_ctx = self.n_ctx // self.slots_count
        self.n_vocab = self.model.n_vocab()
        self._batch = LlamaBatch(n_tokens=self.n_batch, embd=0, n_seq_max=self.slots_count, verbose=False)
        self._slots = [Slot(seq) for seq in range(self.slots_count)]
        self._queue: collections.deque[QueuedRequest] = collections.deque()
        self._lock = threading.Condition()
        self._closed = False
        self.stats = BatchStats()
        self._thread = threading.Thread(target=self._run, name="llama-batch", daemon=True)
        self._thread.start()

    # -- public --------------------------------------------------------------

    def tokenize(self, text: str) -> list[int]:
        """Tokens of a formatted prompt; special tokens (``<|im_start|>``) are parsed."""
        return list(self.model.tokenize(text.encode(), add_bos=self.model.add_bos_token(), special=True))

    def submit(
        self,
        tokens: list[int],
        *,
        max_tokens: int,
        grammar: str | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        stop: tuple[str, ...] = (),
        ignore_eos: bool = False,
        frequency_penalty: float = 0.0,
        presence_penalty: float = 0.0,
        max_token_run: int = 0,
    ) -> Future[Generated]:
        """Queue a completion of ``tokens``; the future holds the result or the error.

        ``ignore_eos`` decodes past the end-of-text token up to ``max_tokens``
        (a fixed-length completion, for benchmarks); the penalties are OpenAI's
        (:class:`~engines.llm.sampling.TokenChooser`); ``max_token_run``
        ends a completion whose last that many tokens repeat one short cycle (a
        degenerate loop such as ``¡¡¡¡…``; :meth:`Slot.looping`), finish reason ``length``.
        """
        if not tokens:
            raise ValueError("empty prompt")
        if len(tokens) + 1 > self.per_request_ctx:
            raise ContextFull(f"prompt of {len(tokens)} tokens exceeds the {self.per_request_ctx}-token context")
        max_tokens = max(1, min(max_tokens, self.per_request_ctx - len(tokens)))
        chooser = TokenChooser(
            self.model.vocab,
            self.n_vocab,
            grammar,
            temperature,
            seed,
            top_p,
            frequency_penalty=frequency_penalty,
            presence_penalty=presence_penalty,
        )
        request = QueuedRequest(
            list(tokens), max_tokens, chooser, stop, Future(), ignore_eos=ignore_eos, max_token_run=max(0, max_token_run)
        )
        with self._lock:
            if self._closed:
                raise RuntimeError("model is shut down")
            self._queue.append(request)
            self._lock.notify()
        return request.future

    def load(self) -> dict[str, int]:
        """Requests running and waiting, for health and autoscaling metrics."""
        with self._lock:
            running = sum(1 for s in self._slots if s.request is not None)
            return {"running": running, "waiting": len(self._queue), "slots": self.slots_count}

    def alive(self) -> bool:
        return self._thread.is_alive() and not self._closed

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        self._thread.join(timeout=30)
        for request in list(self._queue):
            request.future.set_exception(RuntimeError("model is shut down"))
        self._queue.clear()
        self._batch.close()
        self.context.close()
        self.model.close()

    # -- scheduler -----------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._closed and not self._queue and not self._active():
                    self._lock.wait()
                if self._closed:
                    break
                self._admit()
            if not self._active():
                time.sleep(0.005)  # a queued request is waiting for a shared prefix
                continue
            started = time.monotonic()
            try:
                self._step()
            except Exception as exc:  # never let one bad step kill the scheduler
                log.exception("llama.cpp step failed")
                self._fail_all(exc)
            self.stats.busy_s += time.monotonic() - started
        self._fail_all(RuntimeError("model is shut down"))

    def _active(self) -> bool:
        return any(s.request is not None for s in self._slots)

    def _admit(self) -> None:
        """Move queued requests into free slots, in order, reusing cached prefixes."""
        waiting: list[QueuedRequest] = []
        while self._queue:
            request = self._queue.popleft()
            if request.future.cancelled():
                request.chooser.close()
                continue
            free = [s for s in self._slots if s.request is None]
            if not free or should_wait(request, self._slots):
                waiting.append(request)
                continue
            self._place(request, free)
        self._queue.extendleft(reversed(waiting))

    def _place(self, request: QueuedRequest, free: list[Slot]) -> None:
        """Start ``request`` in a free slot, its KV cache holding the longest prefix any slot had."""
        memory = self.context.memory
        placement = place(request, free, self._slots)
        slot, keep = placement.slot, placement.keep
        if placement.donor is not None:
            llama_cpp.llama_memory_seq_rm(memory, slot.seq, 0, -1)
            llama_cpp.llama_memory_seq_cp(memory, placement.donor.seq, slot.seq, 0, keep)
        else:
            llama_cpp.llama_memory_seq_rm(memory, slot.seq, keep, -1)
        slot.begin(request, keep)

    def _step(self) -> None:
        """One llama.cpp batch: a token per generating slot, then prompt chunks."""
        batch = self._batch.batch
        batch.n_tokens = 0
        outputs: list[tuple[Slot, int]] = []
        for slot in self._slots:
            if slot.request is not None and slot.next_token is not None:
                outputs.append((slot, self._add(slot, [slot.next_token])))
        for slot in self._slots:
            room = self.n_batch - batch.n_tokens
            if room <= 0:
                break
            if slot.reading and slot.request is not None:
                chunk = slot.request.tokens[len(slot.cached) : len(slot.cached) + room]
                index = self._add(slot, chunk)
                if len(slot.cached) == len(slot.request.tokens):
                    outputs.append((slot, index))
        if batch.n_tokens == 0:
            return
        for _, index in outputs:
            batch.logits[index] = True
        status = llama_cpp.llama_decode(self.context.ctx, batch)
        if status != 0:
            self._recover(status)
            return
        self.stats.steps += 1
        for slot, index in outputs:
            self._advance(slot, index)

    def _add(self, slot: Slot, tokens: list[int]) -> int:
        """Append tokens of one slot to the batch; returns the index of the last one."""
        batch = self._batch.batch
        start = len(slot.cached)
        for offset, token in enumerate(tokens):
            i = batch.n_tokens
            batch.token[i] = token
            batch.pos[i] = start + offset
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = slot.seq
            batch.logits[i] = False
            batch.n_tokens += 1
        slot.cached.extend(tokens)
        if slot.next_token is not None and tokens == [slot.next_token]:
            slot.next_token = None
        return batch.n_tokens - 1

    def _advance(self, slot: Slot, index: int) -> None:
        """Choose the slot's next token and finish the request when it is done."""
        request = slot.request
        assert request is not None
        pointer = llama_cpp.llama_get_logits_ith(self.context.ctx, index)
        logits = np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))
        token = request.chooser.choose(logits)
        if not request.ignore_eos and llama_cpp.llama_vocab_is_eog(self.model.vocab, token):
            self._finish(slot, "stop")
            return
        slot.output.append(token)
        if request.stop and self._hit_stop(slot):
            self._finish(slot, "stop")
        elif len(slot.output) >= request.max_tokens or len(slot.cached) + 1 >= self.per_request_ctx or slot.looping():
            self._finish(slot, "length")
        elif request.future.cancelled():
            self._finish(slot, "stop")
        else:
            slot.next_token = token

    def _hit_stop(self, slot: Slot) -> bool:
        assert slot.request is not None
        tail = self._text(slot.output[-16:])
        return any(s in tail for s in slot.request.stop)

    def _text(self, tokens: list[int]) -> str:
        return self.model.detokenize(tokens).decode("utf-8", errors="replace")

    def _finish(self, slot: Slot, reason: str) -> None:
        request = slot.request
        assert request is not None
        result = Generated(
            text=cut_at_stops(self._text(slot.output), request.stop),
            prompt_tokens=len(request.tokens),
            completion_tokens=len(slot.output),
            cached_tokens=slot.reused,
            finish_reason=reason,
            seconds=time.monotonic() - request.started,
        )
        self.stats.record(result)
        request.chooser.close()
        slot.request, slot.next_token = None, None
        if not request.future.cancelled():
            request.future.set_result(result)
        with self._lock:
            self._lock.notify_all()

    def _recover(self, status: int) -> None:
        """A batch llama.cpp could not place: fail the running requests, start clean.

        Each request is capped at ``n_ctx // slots`` cells, so a full cache
        should not happen; if it does, callers get a retryable error instead
        of a half-written sequence.
        """
        log.warning("llama_decode returned %d; dropping the KV cache", status)
        error = ContextFull("the KV cache is full; retry") if status == 1 else RuntimeError(f"llama_decode failed ({status})")
        self._fail_all(error)

    def _fail(self, slot: Slot, exc: BaseException) -> None:
        request = slot.request
        slot.request, slot.next_token = None, None
        if request is not None:
            request.chooser.close()
            if not request.future.done():
                request.future.set_exception(exc)

    def _fail_all(self, exc: BaseException) -> None:
        memory = self.context.memory
        for slot in self._slots:
            if slot.request is not None:
                self._fail(slot, exc)
            llama_cpp.llama_memory_seq_rm(memory, slot.seq, 0, -1)
            slot.cached = []
