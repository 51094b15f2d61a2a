/** Points per level step: level n starts at 100 · (n − 1)² points (0, 100, 400, 900, 1600, …). */
export const LEVEL_STEP = 100

/** The points at which `level` starts. */
export const levelStart = (level: number): number => LEVEL_STEP * (level - 1) ** 2

/**
 * A member's level for their points: 1 + ⌊√(xp / 100)⌋, so each level needs more than the one before (100 points
 * reach level 2, 400 level 3, 900 level 4). Negative points count as none. Exact at the boundaries (no floating
 * point rounding decides a level).
 */
export const levelOf = (xp: number): number => {
  const points = Math.max(0, Math.floor(xp))
  let level = 1 + Math.floor(Math.sqrt(points / LEVEL_STEP))
  while (levelStart(level + 1) <= points) level++
  while (level > 1 && levelStart(level) > points) level--
  return level
}

/** A member's progress: their level and the points at which the next one starts. */
export const progressOf = (xp: number) => {
  const level = levelOf(xp)
  return { level, next_level_xp: levelStart(level + 1) }
}
