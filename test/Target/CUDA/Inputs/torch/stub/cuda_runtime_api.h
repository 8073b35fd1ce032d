// Stand-in for the CUDA runtime API header: the types sinter/rt.h names.
#pragma once
typedef struct CUstream_st *cudaStream_t;
typedef enum cudaError { cudaSuccess = 0 } cudaError_t;
