/*
 * cg_nocuda.h - internal: what a build without CUDA says. Every *_nocuda.c
 * (src/vk_cuda and src/gl_capture) reports this one text as its last error,
 * so the exception a user sees names the same fix on every zero-copy path.
 */
#ifndef CG_NOCUDA_H
#define CG_NOCUDA_H

#define CG_NOCUDA_MESSAGE                                                        \
    "this libnative-lib was built without CUDA (configure with CG_WITH_CUDA=ON " \
    "and the CUDA Toolkit installed)"

/* The same text as the cg_err the *_error accessors return. */
#define CG_NOCUDA_ERR_INIT {CG_NOCUDA_MESSAGE}

#endif /* CG_NOCUDA_H */
