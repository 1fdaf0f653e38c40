/* Strided copies: every PE scatters column `me` of a matrix into the next PE with iput (source stride 1,
   destination stride COLS), and gathers a column of the previous PE's matrix with iget. OpenSHMEM 1.5 API
   only. Built by the conformance tests once shmem_int_iput / iget are no longer pending. */
#include <shmem.h>
#include <stdio.h>

#define ROWS 50
#define COLS 8

int main(void) {
  shmem_init();
  int me = shmem_my_pe();
  int npes = shmem_n_pes();
  int right = (me + 1) % npes;
  int left = (me + npes - 1) % npes;
  int col = me % COLS;

  int *matrix = shmem_malloc(ROWS * COLS * sizeof(int));
  int column[ROWS], got[ROWS];
  for (int i = 0; i < ROWS * COLS; i++) matrix[i] = -1;
  for (int r = 0; r < ROWS; r++) column[r] = me * 1000 + r;
  shmem_barrier_all();

  shmem_int_iput(&matrix[col], column, COLS, 1, ROWS, right); /* column `col` of the right PE's matrix */
  shmem_barrier_all();

  int errors = 0;
  int lcol = left % COLS;
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) {
      int expect = (c == lcol) ? left * 1000 + r : -1;
      if (npes > COLS && c != lcol) continue; /* several PEs may share a column index */
      if (matrix[r * COLS + c] != expect && errors++ < 5)
        printf("PE %d: matrix[%d][%d] = %d, expected %d\n", me, r, c, matrix[r * COLS + c], expect);
    }
  /* The column this PE wrote into the right neighbour, read back with a strided get. */
  shmem_iget(got, &matrix[col], 1, COLS, ROWS, right);
  for (int r = 0; r < ROWS; r++)
    if (got[r] != me * 1000 + r && errors++ < 10)
      printf("PE %d: got[%d] = %d, expected %d\n", me, r, got[r], me * 1000 + r);

  shmem_barrier_all();
  shmem_free(matrix);
  if (errors)
    printf("strided_copy: FAIL on PE %d (%d errors)\n", me, errors);
  else if (me == 0)
    printf("strided_copy: PASS on %d PEs\n", npes);
  shmem_finalize();
  return errors ? 1 : 0;
}
