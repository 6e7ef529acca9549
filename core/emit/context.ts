// State shared by the emitter's passes over one document: identifiers, the output text with its
// indentation, which helpers were used, and where the current statement sits (inside a worker's
// stripe, which register cache applies).

import { Doc, Expr, Stmt } from "../ir/ast";
import { Plan } from "../plan/plan";
import { Text } from "../util/text";
import { Names } from "./names";
import { Distribution } from "../analysis/distribution";
import { noHelpers, useHelper } from "./helpers";
import { Ranges } from "./ranges";
import { LoopRanges } from "../analysis/ranges";

/** The indentation of levels 0 to 8, one string each (one part per line, not one per level). */
const INDENTS: Array<string> = ["", "  ", "    ", "      ", "        ", "          ", "            ", "              ", "                "];

export class Ctx {
  doc: Doc;
  plan: Plan;
  names: Names;
  out: Text = new Text();
  ind: i32 = 1;
  /** Which helpers (helpers.ts, HELPER_NAMES order) the emitted text calls. */
  helpers: Array<bool> = noHelpers();
  /** Value ranges of i32 names (which i32 operations need a wrapping helper). */
  ranges: Ranges = new Ranges();
  /** Cooperative reduction: every device store is predicated with `live`. */
  liveStores: bool = false;
  /** Fused element grid: parallel loops bind their variable from the thread's coordinates. */
  gridDepth: i32 = -1;
  /** Fused element grid: the coordinate text of each domain depth (without the loop's min). */
  gridCoords: Array<string> = new Array<string>();
  /** Fused element grid: the innermost coordinate is the first of a vector of this many columns. */
  gridQ: i32 = 1;
  /** Fused element grid: the row length when it is not a multiple of gridQ (a row's last vector
   *  is ragged and runs element by element), else 0. */
  gridRaggedCols: i32 = 0;
  /** Cooperative reduction: where each program-level statement runs (the plan's Distribution). */
  roles: Distribution = new Distribution();
  /** Bounds of every loop: a loop whose variable or end may leave i32 is emitted in 64-bit. */
  loopRanges: LoopRanges = new LoopRanges();
  /** Counter for generated names that must be unique in the kernel. */
  serial: i32 = 0;
  /** Inside a worker's stripe: the IR variable, its range texts, and the register slot text. */
  stripeVar: string = "";
  stripeMin: string = "";
  stripeExt: string = "";
  cacheIndex: string = "";
  /** Register caches (cooperative reduction, cached input): buffer, range, size, first site. */
  cacheBufs: Array<string> = new Array<string>();
  cacheMin: Array<string> = new Array<string>();
  cacheExt: Array<string> = new Array<string>();
  cacheSize: Array<i32> = new Array<i32>();
  /** The largest extent of each cache's range over the programs (its extent where constant). */
  cacheMost: Array<i32> = new Array<i32>();
  /** The index position of the stripe variable in the cached loads (the last: a row stripe). */
  cacheDim: Array<i32> = new Array<i32>();
  cacheSite: Array<Stmt> = new Array<Stmt>();
  /** Whether the program also writes each cached buffer (in place): its fill then reads element
   *  by element (core/emit/cooperative.ts fillChunk). */
  cacheWritten: Array<bool> = new Array<bool>();
  cacheDeclared: Array<bool> = new Array<bool>();
  cacheFilled: Array<bool> = new Array<bool>();
  /** Inside a packed vector (core/analysis/vectors.ts): loads and stores served by registers
   *  `var[j]` that one packed access fills or writes. */
  packLoads: Array<Expr> = new Array<Expr>();
  packLoadVars: Array<string> = new Array<string>();
  packStores: Array<Stmt> = new Array<Stmt>();
  packStoreVars: Array<string> = new Array<string>();
  /** Reduces whose per-element value later stages read back from a cache slot (reuse.ts): the
   *  reduce, the cache's buffer, the stripe's range texts, and whether the reduce was emitted. */
  keepStmt: Array<Stmt> = new Array<Stmt>();
  keepBuf: Array<string> = new Array<string>();
  keepMin: Array<string> = new Array<string>();
  keepExt: Array<string> = new Array<string>();
  keepOn: Array<bool> = new Array<bool>();
  /** While such a reduce's stripe is written: the cache array its values go into. */
  keepInto: string = "";
  /** The max/min stripe being emitted keeps a sign word (core/analysis/zerosign.ts). */
  zeroSign: bool = false;
  /** While a packed access's address is written: the IR name bound to the vector's first value. */
  overrideName: string = "";
  overrideText: string = "";

  constructor(doc: Doc, plan: Plan, names: Names) {
    this.doc = doc;
    this.plan = plan;
    this.names = names;
  }

  /** Records that the text calls helper `name`. */
  use(name: string): void {
    useHelper(this.helpers, name);
  }

  line(s: string): void {
    if (this.ind > 0 && this.ind < INDENTS.length) this.out.add(INDENTS[this.ind]);
    else for (let i: i32 = 0; i < this.ind; i++) this.out.add("  ");
    this.out.line(s);
  }

  open(s: string): void {
    this.line(s);
    this.ind = this.ind + 1;
  }

  close(s: string): void {
    this.ind = this.ind - 1;
    this.line(s);
  }
}
