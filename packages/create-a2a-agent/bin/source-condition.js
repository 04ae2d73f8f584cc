// A module resolve hook, registered by launch.js in this repository's checkout only: apps linked to
// the workspace packages (examples/, apps scaffolded inside the repository) import them under the
// "@a2a-agent/source" condition, so their TypeScript sources load and no dist/ build is needed.
const CONDITION = '@a2a-agent/source'

export async function resolve(specifier, context, next) {
  if (context.conditions?.includes(CONDITION)) return next(specifier, context)
  return next(specifier, { ...context, conditions: [...(context.conditions ?? []), CONDITION] })
}
