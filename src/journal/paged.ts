// Growable typed arrays that never copy and never free a large block: glibc hands out blocks
// above 128 KiB with mmap, but each such block freed raises that threshold for the whole process,
// after which large buffers (zlib's, the index's) come from a heap that fragments and stays
// resident. Growing the index's arrays by 1.5× had the 4 GiB two-thread peak 13 MB higher
// (docs/performance.md, "The index never frees a large block").

const PAGE_BITS = 13;
/** Entries per page: 32 KiB of Int32, 64 KiB of Float64, below glibc's 128 KiB threshold. */
export const PAGE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE - 1;

export class PagedColumn<T extends Int32Array | Float64Array = Int32Array | Float64Array> {
  private readonly pages: T[] = [];
  size = 0;

  constructor(private readonly make: (n: number) => T) {}

  static ints(): PagedColumn<Int32Array> {
    return new PagedColumn((n) => new Int32Array(n));
  }

  static doubles(): PagedColumn<Float64Array> {
    return new PagedColumn((n) => new Float64Array(n));
  }

  /** `n` zeroed entries at once (a fixed-size table). */
  fill(n: number): this {
    while (this.pages.length * PAGE < n) this.pages.push(this.make(PAGE));
    this.size = n;
    return this;
  }

  push(v: number): void {
    const p = this.size >>> PAGE_BITS;
    if (p === this.pages.length) this.pages.push(this.make(PAGE));
    this.pages[p][this.size & PAGE_MASK] = v;
    this.size++;
  }

  get(i: number): number {
    return this.pages[i >>> PAGE_BITS][i & PAGE_MASK];
  }

  set(i: number, v: number): void {
    this.pages[i >>> PAGE_BITS][i & PAGE_MASK] = v;
  }
}
