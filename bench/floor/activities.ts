export const floorActivities = {
  async noop(): Promise<void> {},
};
export type FloorActivities = typeof floorActivities;
