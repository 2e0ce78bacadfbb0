/* bucket_model.c - a C model of the CPU shape's bucket phase (MSD order,
 * radix_onesweep.cl's clsort_radix_buckets): 32M random u32 keys are split
 * by their top 11 bits into 2048 buckets, then each bucket is sorted by the
 * 21 bits below in one thread, with in-bucket digits of the widths given,
 * A -> B -> ... -> U, after one count of all its digits. It times the
 * bucket phase for several digit-width choices, to compare with the
 * kernel's time on one thread (`POCL_MAX_PTHREAD_COUNT=1 clsort bench
 * --device cpu --sizes 32M --keys-only --profile`).
 *
 *   gcc -O2 -march=native -o bucket_model bench/cpu/bucket_model.c && ./bucket_model
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "bucket_sort.h"
typedef uint32_t idx_t;
static int NW; static int W[4]; /* digit widths, low first */
static void bucket(uint32_t *a, uint32_t *b, uint32_t *u, idx_t lo, idx_t hi){ bucket_sort(a,b,u,lo,hi,NW,W); }
int main(int argc,char**argv){
  size_t n=32u<<20; uint32_t *k=malloc(n*4),*a0=malloc(n*4),*a=malloc(n*4),*b=malloc(n*4),*u=malloc(n*4); uint64_t s=1;
  for(size_t i=0;i<n;i++){s=s*6364136223846793005ull+1442695040888963407ull;k[i]=s>>32;}
  static idx_t start[2049]; memset(start,0,sizeof start);
  for(size_t i=0;i<n;i++) start[(k[i]>>21)+1]++;
  for(int d=0;d<2048;d++) start[d+1]+=start[d];
  idx_t p[2048]; memcpy(p,start,sizeof p);
  for(size_t i=0;i<n;i++) a0[p[k[i]>>21]++]=k[i];
  memset(b,0,n*4); memset(u,0,n*4); memset(a,0,n*4);
  int cfg[][4]={{2,11,10},{3,7,7,7},{3,8,8,5},{2,10,11},{3,6,7,8}};
  /* a warm-up round (the first touches of the buffers cost seconds here) */
  NW=2; W[0]=11; W[1]=10; memcpy(a,a0,n*4);
  for(int d=0;d<2048;d++) bucket(a,b,u,start[d],start[d+1]);
  for(int rep=0;rep<2;rep++) for(int c=0;c<5;c++){
    NW=cfg[c][0]; for(int j=0;j<NW;j++) W[j]=cfg[c][1+j];
    memcpy(a,a0,n*4);
    double t0=now();
    for(int d=0;d<2048;d++) bucket(a,b,u,start[d],start[d+1]);
    double t=now()-t0;
    for(size_t i=1;i<n;i++) if(u[i-1]>u[i]){printf("bad %d\n",c);return 1;}
    printf("widths"); for(int j=0;j<NW;j++) printf(" %d",W[j]); printf(": %.1f ms\n", t);
  }
  return 0;
}
