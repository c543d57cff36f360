/**
 * Set a property by a name that comes from input (an operation name, a tag). Plain assignment
 * would treat `__proto__` as the prototype and lose the entry; defining the property never does.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
