// CSL and whisky-js objects live in WASM memory; the JS wrappers only hold a pointer. A gateway
// building thousands of transactions must free them explicitly (finalizers run late, if ever),
// so every object a build creates is registered in an Arena and freed when the build ends.

interface WasmObject {
  free(): void;
}

export class Arena {
  private readonly owned: WasmObject[] = [];

  /** Register `obj` to be freed by `free()`, and return it. */
  own<T extends WasmObject>(obj: T): T {
    this.owned.push(obj);
    return obj;
  }

  /** Like `own`, for CSL getters that return `undefined` when the field is absent. */
  ownOpt<T extends WasmObject>(obj: T | undefined): T | undefined {
    if (obj !== undefined) this.owned.push(obj);
    return obj;
  }

  free(): void {
    for (const obj of this.owned) {
      // A wasm-bindgen object passed by value, or already freed, has pointer 0; freeing it
      // again throws "null pointer passed to rust".
      if ((obj as { __wbg_ptr?: number }).__wbg_ptr === 0) continue;
      obj.free();
    }
    this.owned.length = 0;
  }
}

/** Run `fn` with a fresh arena and free everything it registered, whatever the outcome. */
export function withArena<T>(fn: (arena: Arena) => T): T {
  const arena = new Arena();
  try {
    return fn(arena);
  } finally {
    arena.free();
  }
}
