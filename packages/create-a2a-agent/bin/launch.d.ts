// Types of launch.js (plain JavaScript: it runs before anything is compiled), for the build.
export declare const PACKAGE_DIR: string
export declare const DIST_DIR: string
export declare const BUILD_INFO: string
export declare function statKey(path: string): string
export declare function freshEntry(name: string): string | undefined
export declare function launch(name: string): Promise<unknown>
