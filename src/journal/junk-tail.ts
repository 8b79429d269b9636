/**
 * The end of a long line of damaged bytes (the zeros a crash leaves in a journal, binary junk)
 * that is only counted, not kept: whole events appended after the damage may still be there.
 * This keeps the bytes from the last `needle` (`{"type":"`) on, up to `max` bytes, so that memory
 * does not follow the damage, only the event after it.
 */
export class JunkTail {
  private parts: Buffer[] = [];
  private bytes = 0;
  /** Input offset of the tail's first byte. */
  private start = -1;
  /** The last needle.length − 1 bytes seen: a needle may be split across two pieces. */
  private prev = Buffer.alloc(0);

  constructor(
    private readonly needle: Buffer,
    private readonly max: number,
  ) {}

  /** The line's next bytes, buf[from, to), which start at input offset `offset`. */
  add(buf: Buffer, from: number, to: number, offset: number): void {
    const piece = buf.subarray(from, to);
    if (this.parts.length > 0) {
      this.parts.push(Buffer.from(piece)); // a copy: the caller reuses its buffer
      this.bytes += piece.length;
      if (this.bytes > this.max) this.trim();
      if (this.parts.length > 0) return this.remember(piece);
    }
    // The first needle from here on starts the tail: every event after it is kept (salvage splits them).
    const across = Buffer.concat([this.prev, piece.subarray(0, this.needle.length - 1)]).indexOf(this.needle);
    if (across !== -1 && this.prev.length - across + piece.length <= this.max) {
      this.restart([this.prev.subarray(across), piece], offset - (this.prev.length - across));
    } else {
      let at = piece.indexOf(this.needle);
      while (at !== -1 && piece.length - at > this.max) at = piece.indexOf(this.needle, at + 1);
      if (at !== -1) this.restart([piece.subarray(at)], offset + at);
    }
    this.remember(piece);
  }

  /** The kept bytes and the input offset of the first, or null when there are none. */
  take(): { buf: Buffer; start: number } | null {
    return this.parts.length === 0 ? null : { buf: Buffer.concat(this.parts, this.bytes), start: this.start };
  }

  /** Too long: starts the tail again at the first needle within the last `max` bytes (none: nothing kept). */
  private trim(): void {
    const joined = Buffer.concat(this.parts, this.bytes);
    const at = joined.indexOf(this.needle, this.bytes - this.max);
    if (at === -1) this.parts = [];
    else this.restart([joined.subarray(at)], this.start + at);
  }

  /** Keeps the piece's last needle.length − 1 bytes (with the ones before when it is shorter). */
  private remember(piece: Buffer): void {
    const keep = this.needle.length - 1;
    this.prev = piece.length >= keep ? Buffer.from(piece.subarray(piece.length - keep)) : Buffer.concat([this.prev, piece]).subarray(-keep);
  }

  private restart(pieces: Buffer[], start: number): void {
    this.parts = pieces.map((p) => Buffer.from(p));
    this.bytes = this.parts.reduce((n, p) => n + p.length, 0);
    this.start = start;
  }
}
