/* msd_model.c - a C model of the CPU shape's whole MSD-order sort (radix.cl,
 * radix_onesweep.cl): one count of the top digit, the top pass in 64K-key
 * tiles staged by digit in a buffer and copied out run by run (as the
 * serial onesweep tile does), then each bucket sorted alone by the bits
 * below in LSD passes after one count of all its digits (as
 * clsort_radix_buckets does), for 8M random u32 keys on one thread, with the
 * digit widths given: the top digit's, then the in-bucket ones, low first.
 * It checks the result and prints each phase's time for the last three of
 * four runs. bench/cpu/bucket_model.c models the bucket phase alone at 32M.
 *
 *   gcc -O2 -march=native -o msd_model bench/cpu/msd_model.c
 *   ./msd_model 10 11 11     # the PoCL row's split at 8M (11-bit digits)
 *   ./msd_model 8 8 8 8      # and others: top bits, then in-bucket widths
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "bucket_sort.h"
int main(int argc,char**argv){
  if(argc<3||argc>6){fprintf(stderr,"usage: msd_model TOP_BITS W0 [W1 [W2 [W3]]] (widths summing to 32 with the top)\n");return 2;}
  size_t n=8u<<20; int tb=atoi(argv[1]); int nw=argc-2; int w[4]; int sum=tb; for(int j=0;j<nw;j++){w[j]=atoi(argv[2+j]);sum+=w[j];}
  if(tb<1||tb>12||sum!=32){fprintf(stderr,"msd_model: the top digit has 1-12 bits, and all widths sum to 32\n");return 2;}
  for(int j=0;j<nw;j++) if(w[j]<1||w[j]>12){fprintf(stderr,"msd_model: in-bucket digits of 1-12 bits\n");return 2;}
  uint32_t *k=malloc(n*4),*a=malloc(n*4),*b=malloc(n*4),*u=malloc(n*4); uint64_t s=1;
  for(size_t i=0;i<n;i++){s=s*6364136223846793005ull+1442695040888963407ull;k[i]=s>>32;}
  int NB=1<<tb, SH=32-tb; uint32_t *start=calloc(NB+1,4), *pos=malloc(NB*4), *h=malloc(NB*4), *at=malloc(NB*4); static uint32_t stage[65536];
  for(int rep=0;rep<4;rep++){
    memcpy(u,k,n*4);
    double t0=now();
    memset(start,0,(NB+1)*4);
    for(size_t i=0;i<n;i++) start[(u[i]>>SH)+1]++;
    for(int d=0;d<NB;d++) start[d+1]+=start[d];
    memcpy(pos,start,NB*4);
    for(size_t t=0;t<n;t+=65536){
      memset(h,0,NB*4);
      for(size_t i=t;i<t+65536;i++) h[u[i]>>SH]++;
      uint32_t acc=0; for(int d=0;d<NB;d++){at[d]=acc;acc+=h[d];}
      for(size_t i=t;i<t+65536;i++) stage[at[u[i]>>SH]++]=u[i];
      uint32_t sidx=0; for(int d=0;d<NB;d++){memcpy(a+pos[d],stage+sidx,h[d]*4);pos[d]+=h[d];sidx+=h[d];}
    }
    double t1=now();
    for(int d=0;d<NB;d++) bucket_sort(a,b,u,start[d],start[d+1],nw,w);
    double t2=now();
    for(size_t i=1;i<n;i++) if(u[i-1]>u[i]){printf("NOT SORTED\n");return 1;}
    if(rep){
      printf("top %d bits + in-bucket", tb);
      for(int j=0;j<nw;j++) printf(" %d", w[j]);
      printf(": count+top %.1f ms, buckets %.1f ms, total %.1f ms\n", t1-t0, t2-t1, t2-t0);
    }
  }
  return 0;
}
