"""The video translation pipeline: pure steps plus Ray Data chunking and the job runner."""
